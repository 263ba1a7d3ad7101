// Identity isolation: an unprivileged uid/gid of the container's own (see
// uid_pool.h), no capabilities, and no way to gain privileges (setuid
// binaries, file capabilities) after exec.
#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {
namespace {

// "uid:gid": the container's own uid, with the group of the same number.
std::string UserOf(const ContainerContext& ctx) {
  return std::to_string(ctx.uid) + ":" + std::to_string(ctx.uid);
}

class IdentityIsolation : public Mechanism {
 public:
  std::string_view name() const override { return "identity"; }

  void Apply(const PolicySettings&, const ContainerContext& ctx,
             nlohmann::json& create) const override {
    create["User"] = UserOf(ctx);
    auto& host = create["HostConfig"];
    host["Privileged"] = false;
    host["CapDrop"] = {"ALL"};
    host["CapAdd"] = nlohmann::json::array();
    host["SecurityOpt"] = {"no-new-privileges"};
  }

  Status Verify(const PolicySettings&, const ContainerContext& ctx,
                const nlohmann::json& inspect) const override {
    const auto& user = InspectField(inspect, "Config", "User");
    if (user != UserOf(ctx)) return PolicyMismatch(name(), "Config.User", UserOf(ctx), user);
    const auto& priv = InspectField(inspect, "HostConfig", "Privileged");
    if (priv == true) return PolicyMismatch(name(), "HostConfig.Privileged", false, priv);
    const auto& opts = InspectField(inspect, "HostConfig", "SecurityOpt");
    bool nnp = false;
    if (opts.is_array()) {
      for (const auto& o : opts) {
        // Docker echoes "no-new-privileges"; Podman may add ":true".
        if (o.is_string() && o.get<std::string>().rfind("no-new-privileges", 0) == 0) nnp = true;
      }
    }
    if (!nnp) return PolicyMismatch(name(), "HostConfig.SecurityOpt", "no-new-privileges", opts);
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeIdentityIsolation() { return std::make_unique<IdentityIsolation>(); }

}  // namespace coderunner::isolation
