#include "standardkeys.h"

QString StandardKeys::first(QKeySequence::StandardKey key)
{
    const QList<QKeySequence> bindings = QKeySequence::keyBindings(key);
    return bindings.isEmpty() ? QString() : bindings.first().toString(QKeySequence::PortableText);
}
