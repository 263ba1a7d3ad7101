# The web playground (web/, served at GET /): bundled by web/build.sh (npm ci
# of the pinned CodeMirror and esbuild, then esbuild) at BUILD time, and its
# files compiled into coderunner_core by cmake/embed_assets.cmake. Needs node
# and npm while building, nothing while running. -DCODERUNNER_UI=OFF builds
# without it (GET / then answers 404 ui_not_built).
option(CODERUNNER_UI "Bundle the web playground (needs node and npm at build time)" ON)
set(CODERUNNER_UI_CC ${CMAKE_BINARY_DIR}/generated/ui_assets.cc)
if(CODERUNNER_UI)
  find_program(CODERUNNER_NPM npm REQUIRED)
  file(GLOB CODERUNNER_WEB_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/web/src/*)
  set(CODERUNNER_WEB_DIST ${CMAKE_BINARY_DIR}/web/dist)
  add_custom_command(
    OUTPUT ${CODERUNNER_UI_CC}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${CODERUNNER_WEB_DIST}
    COMMAND ${PROJECT_SOURCE_DIR}/web/build.sh ${CODERUNNER_WEB_DIST} ${CMAKE_BINARY_DIR}/web/node
    COMMAND ${CMAKE_COMMAND} -DDIST=${CODERUNNER_WEB_DIST} -DOUT=${CODERUNNER_UI_CC}
            -DHEADER=${PROJECT_SOURCE_DIR}/src/ui/asset_table.h -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
    DEPENDS ${CODERUNNER_WEB_SOURCES} ${PROJECT_SOURCE_DIR}/web/package.json
            ${PROJECT_SOURCE_DIR}/web/package-lock.json ${PROJECT_SOURCE_DIR}/web/build.sh
            ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
    COMMENT "Bundling the web playground (web/build.sh) and compiling it in"
    VERBATIM)
else()
  execute_process(COMMAND ${CMAKE_COMMAND} -DDIST= -DOUT=${CODERUNNER_UI_CC}
                  -DHEADER=${PROJECT_SOURCE_DIR}/src/ui/asset_table.h -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake)
endif()
