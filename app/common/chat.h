// Who wrote a message and what state it is in: one enum each, shared by the
// message model, the conversation store, the export bundle and QML
// (`Chat.User`, `Chat.Stopped`). The names are what the database and the
// export files hold; they are written and read only here.
#pragma once

#include <QObject>
#include <QString>
#include <QStringView>
#include <QtQml/qqmlregistration.h>

namespace Chat {
Q_NAMESPACE
QML_ELEMENT

enum class Role {
    System,
    User,
    Assistant,
};
Q_ENUM_NS(Role)

// The numbers are those the store has always reported (messageList()'s
// "state"); keep them.
enum class State {
    Complete = 0,     // sent, or a reply that ended by itself
    Streaming = 1,    // a reply being generated now
    Interrupted = 2,  // Burrow ended while the reply streamed (crash, kill)
    Stopped = 3,      // the user stopped the reply; the partial text stays
    Failed = 4,       // generation failed; the message's error says why
};
Q_ENUM_NS(State)

// "system", "user", "assistant".
QString roleName(Role role);
// false when `name` is none of them.
bool roleFromName(QStringView name, Role *role);

// "complete", "streaming", "interrupted", "stopped", "error".
QString stateName(State state);
// An unknown name reads as Failed (the message is kept and marked).
State stateFromName(QStringView name);
// A reply that has ended (Complete, Stopped, Failed, Interrupted).
inline bool isFinal(State state) { return state != State::Streaming; }

} // namespace Chat
