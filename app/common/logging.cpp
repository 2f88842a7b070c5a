#include "logging.h"

Q_LOGGING_CATEGORY(lcApp, "burrow.app", QtInfoMsg)
