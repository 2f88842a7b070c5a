# Fails when a QML file of the module switches a qmllint warning off
# (`// qmllint disable ...`): the QML is typed so that qmllint has nothing
# to say (docs/architecture.md, Tests). Run by CTest (qmllint_suppressions).
file(GLOB_RECURSE qml_files "${QML_DIR}/*.qml" "${QML_DIR}/*.js")
set(found "")
foreach(file IN LISTS qml_files)
    file(STRINGS "${file}" lines REGEX "qmllint +disable")
    if(lines)
        list(APPEND found "${file}")
    endif()
endforeach()
if(found)
    list(JOIN found "\n  " list)
    message(FATAL_ERROR "qmllint warnings switched off in:\n  ${list}")
endif()
list(LENGTH qml_files count)
message(STATUS "no qmllint suppressions in ${count} QML files")
