# Shared CMake helpers.

# Warnings for our own targets.
function(burrow_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()

# burrow_engine_component(NAME SOURCES ... [DEPS ...])
# One static library per engine concern (burrow_<NAME>), so a broken file in
# one concern does not stop the others from building.
function(burrow_engine_component name)
    cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
    add_library(burrow_${name} STATIC ${ARG_SOURCES})
    # engine/include is the engine's interface; engine/src is private to its
    # components (burrow_engine_internals lends it to the engine's own tools
    # and tests).
    target_include_directories(burrow_${name}
        PUBLIC  ${PROJECT_SOURCE_DIR}/engine/include
        PRIVATE ${PROJECT_SOURCE_DIR}/engine/src)
    target_link_libraries(burrow_${name} PUBLIC ${ARG_DEPS})
    burrow_warnings(burrow_${name})
endfunction()

# burrow_add_test(NAME SOURCES ... [LIBS ...] [QML])
# A Qt Test executable registered with CTest. The test finds ../shared through
# BURROW_SHARED_DIR and writes only into a temporary XDG tree.
function(burrow_add_test name)
    cmake_parse_arguments(ARG "" "LABEL" "SOURCES;LIBS" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE Qt6::Test ${ARG_LIBS})
    target_compile_definitions(${name} PRIVATE
        BURROW_SHARED_DIR="${BURROW_SHARED_DIR}"
        BURROW_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
        BURROW_BINARY_DIR="${PROJECT_BINARY_DIR}")
    burrow_warnings(${name})
    add_test(NAME ${name} COMMAND ${name})
    set(env "QT_QPA_PLATFORM=offscreen"
            "XDG_DATA_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${name}/data"
            "XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${name}/config"
            "XDG_CACHE_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${name}/cache"
            "XDG_RUNTIME_DIR=${CMAKE_CURRENT_BINARY_DIR}/xdg/${name}/runtime")
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
    if(ARG_LABEL)
        set_tests_properties(${name} PROPERTIES LABELS ${ARG_LABEL})
    endif()
endfunction()
