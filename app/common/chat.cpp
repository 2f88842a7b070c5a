#include "chat.h"

namespace Chat {

QString roleName(Role role)
{
    switch (role) {
    case Role::System: return QStringLiteral("system");
    case Role::User: return QStringLiteral("user");
    case Role::Assistant: return QStringLiteral("assistant");
    }
    return QStringLiteral("user");
}

bool roleFromName(QStringView name, Role *role)
{
    for (Role r : {Role::System, Role::User, Role::Assistant}) {
        if (name == roleName(r)) {
            *role = r;
            return true;
        }
    }
    return false;
}

QString stateName(State state)
{
    switch (state) {
    case State::Complete: return QStringLiteral("complete");
    case State::Streaming: return QStringLiteral("streaming");
    case State::Interrupted: return QStringLiteral("interrupted");
    case State::Stopped: return QStringLiteral("stopped");
    case State::Failed: return QStringLiteral("error");
    }
    return QStringLiteral("error");
}

State stateFromName(QStringView name)
{
    for (State s : {State::Complete, State::Streaming, State::Interrupted, State::Stopped, State::Failed}) {
        if (name == stateName(s))
            return s;
    }
    return State::Failed;
}

} // namespace Chat
