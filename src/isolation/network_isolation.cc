// Network isolation: the job gets a network namespace with loopback only.
#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {
namespace {

class NetworkIsolation : public Mechanism {
 public:
  std::string_view name() const override { return "network"; }

  void Apply(const PolicySettings&, const ContainerContext&,
             nlohmann::json& create) const override {
    create["NetworkDisabled"] = true;
    create["HostConfig"]["NetworkMode"] = "none";
    create["Hostname"] = "sandbox";
  }

  Status Verify(const PolicySettings&, const ContainerContext&,
                const nlohmann::json& inspect) const override {
    const auto& mode = InspectField(inspect, "HostConfig", "NetworkMode");
    if (mode != "none") return PolicyMismatch(name(), "HostConfig.NetworkMode", "none", mode);
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeNetworkIsolation() { return std::make_unique<NetworkIsolation>(); }

}  // namespace coderunner::isolation
