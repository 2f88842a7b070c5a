#!/bin/sh
# Re-reads every qsTr()/tr() in app/ and qml/ into the translation files.
# New strings arrive marked unfinished; translate them with Qt Linguist
# (`linguist i18n/burrow_zh_CN.ts`), then check with
# `ctest --test-dir build/<tree> -R tst_translations`. See docs/translations.md.
set -eu
cd "$(dirname "$0")/.."
LUPDATE=${LUPDATE:-/usr/lib/qt6/bin/lupdate}
# English is the source language: its file holds only the plural forms.
"$LUPDATE" app qml -no-obsolete -locations none -source-language en -target-language en \
    -pluralonly -ts i18n/burrow_en.ts
for lang in zh_CN zh_TW; do
    "$LUPDATE" app qml -no-obsolete -locations none -source-language en -target-language "$lang" \
        -ts "i18n/burrow_$lang.ts"
done
