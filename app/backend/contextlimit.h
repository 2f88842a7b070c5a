// The context a chat gets: decided here, and nowhere else. The settings
// panel, the model card, the status line and the engine backend all ask.
#pragma once

namespace ContextLimit {

// The Context size setting's "Automatic" (its default).
inline constexpr int Automatic = 0;
// What Automatic asks for at most: enough for a long chat, and a KV cache
// that a laptop's memory holds beside the weights.
inline constexpr int AutomaticCeiling = 4096;
// The smallest context worth a reply.
inline constexpr int Minimum = 64;

// Positions a chat that asks for `requested` (Automatic or a size) gets on
// a model trained for `trained` positions (0: unknown), when `fitting`
// positions fit in the free memory beside the weights (0: unknown).
//   Automatic: the smallest of AutomaticCeiling, `trained` and `fitting`
//   (never below Minimum for memory, which the card then warns about).
//   A size: that size, at most `trained` (the model knows no more); memory
//   does not shrink it (the settings panel refuses a size that does not fit,
//   the model card warns before a load).
// At least 1.
int decide(int requested, int trained, int fitting);

} // namespace ContextLimit
