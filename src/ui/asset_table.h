// The table cmake/embed_assets.cmake generates from web/build.sh's output
// (build/generated/ui_assets.cc). Private to src/ui.
#ifndef CODERUNNER_UI_ASSET_TABLE_H_
#define CODERUNNER_UI_ASSET_TABLE_H_

#include <span>

#include "coderunner/ui/assets.h"

namespace coderunner::ui {

// The generated files, sorted by name.
std::span<const Asset> CompiledAssets();

}  // namespace coderunner::ui

#endif  // CODERUNNER_UI_ASSET_TABLE_H_
