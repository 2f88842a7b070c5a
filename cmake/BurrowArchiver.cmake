# burrow-archive is its own CMake project (archiver/) built through
# ExternalProject: it links KArchive's Qt (KF6 where found, else KF5 + Qt 5
# Core) and must never share a target with the app's Qt 6. The binary lands
# beside `burrow` so the app finds it next to itself.
include(ExternalProject)
set(BURROW_ARCHIVER_BIN ${PROJECT_BINARY_DIR}/app/burrow-archive)
ExternalProject_Add(burrow_archiver
    SOURCE_DIR ${PROJECT_SOURCE_DIR}/archiver
    BINARY_DIR ${PROJECT_BINARY_DIR}/archiver-build   # (not archiver/: trees configured when the sources were app/archiver keep that cache)
    CMAKE_GENERATOR Ninja
    CMAKE_ARGS
        -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
        -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
        -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
        -DCMAKE_RUNTIME_OUTPUT_DIRECTORY=${PROJECT_BINARY_DIR}/app
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    BUILD_BYPRODUCTS ${BURROW_ARCHIVER_BIN}
    USES_TERMINAL_BUILD OFF)
install(PROGRAMS ${BURROW_ARCHIVER_BIN} DESTINATION bin)
