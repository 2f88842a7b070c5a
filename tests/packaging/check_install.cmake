# Installs the build tree into a temporary prefix and checks that every file
# lands where a Linux desktop looks for it.
#   cmake -DBUILD_DIR=... -DPREFIX=... -P check_install.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(id io.github.burrow.Burrow)
set(expected
    bin/burrow
    bin/burrow-archive
    bin/burrow-cli
    share/applications/${id}.desktop
    share/metainfo/${id}.metainfo.xml
    share/mime/packages/${id}.xml
    share/icons/hicolor/scalable/apps/${id}.svg
    share/doc/burrow/copyright)
foreach(size 16 24 32 48 64 128 256 512)
    list(APPEND expected share/icons/hicolor/${size}x${size}/apps/${id}.png)
endforeach()
set(missing "")
foreach(rel IN LISTS expected)
    if(NOT EXISTS "${PREFIX}/${rel}")
        list(APPEND missing ${rel})
    endif()
endforeach()
foreach(exe bin/burrow bin/burrow-archive bin/burrow-cli)
    if(EXISTS "${PREFIX}/${exe}" AND IS_DIRECTORY "${PREFIX}/${exe}")
        list(APPEND missing "${exe} (is a directory)")
    endif()
endforeach()
if(missing)
    message(FATAL_ERROR "not installed where expected: ${missing}")
endif()
# The desktop file must open .gguf files with the installed binary.
file(READ "${PREFIX}/share/applications/${id}.desktop" desktop)
if(NOT desktop MATCHES "MimeType=application/x-gguf;" OR NOT desktop MATCHES "Exec=burrow %f")
    message(FATAL_ERROR "the desktop file does not open .gguf files with burrow")
endif()
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "install layout: every file in place")
