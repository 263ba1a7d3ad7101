// BuildDispatch without the fleet (CODERUNNER_FLEET off): always one node.
// store.kind postgres was refused when the store was opened.
#include "dispatch_wiring.h"

namespace coderunner::service {

Status BuildDispatch(Components&) { return OkStatus(); }

}  // namespace coderunner::service
