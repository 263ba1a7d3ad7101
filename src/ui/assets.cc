#include "coderunner/ui/assets.h"

#include "asset_table.h"

namespace coderunner::ui {

std::span<const Asset> Assets() { return CompiledAssets(); }

const Asset* FindAsset(std::string_view name) {
  for (const Asset& a : CompiledAssets()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace coderunner::ui
