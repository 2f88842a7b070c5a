// The app's one logging category ("burrow.app"); enable with
// QT_LOGGING_RULES="burrow.app.debug=true".
#pragma once

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcApp)
