// ReplySettings: what one reply is generated with, in the engine's own
// types. The settings field table (settings/settingsfields.cpp) is the only
// code that fills it, from a chat's settings; the engine bridge passes it on
// unchanged. Plain data, copied into each request.
#pragma once

#include <cstdint>
#include <string>

#include "burrow/engine.h"

struct ReplySettings {
    burrow::SamplingParams sampling;   // every field set by the table (its defaults, not the engine's)
    int32_t maxTokens = -1;            // GenerateOptions::maxTokens (-1: until the model ends its turn)
    int contextSize = 0;               // what the chat asks for (0: Automatic; the engine backend
                                       // decides the positions with ContextLimit::decide)
    // What a full context does (GenerateOptions::overflow): shift keeps the
    // system prompt and the first exchange (nKeep) and drops the oldest.
    burrow::ContextOverflow contextOverflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;
    burrow::KvCacheType kvCacheType = burrow::KvCacheType::KV_CACHE_F16;   // SchedulerOptions::kvCacheType
    std::string systemPrompt;          // a system message before the conversation ("" for none)
    std::string chatFormat = "auto";   // RenderOptions::chatFormat
    bool enableThinking = true;        // RenderOptions::enableThinking (templates that read enable_thinking)
    std::string reasoningEffort = "medium";  // RenderOptions::reasoningEffort (templates that read reasoning_effort)
    burrow::SpeculativeOptions speculative;  // GenerateOptions::speculative (mode, draft model)
    bool tools = true;                 // the chat offers the tools of Settings → Tools (ChatRequest::toolsJson)
};
