"""What differs between the emulated control-plane releases: the grants
the token endpoint accepts, the status of an accepted create, delete and
update (an inference's, from 2.21),
whether the token answer carries expiresIn, where nodes are listed and
which node telemetry types there are."""

# what the node telemetry reports in every release, then from 2.21
_TELEMETRY_2_18 = ("TOTAL_GPUS", "FREE_GPUS")
_TELEMETRY_2_21 = _TELEMETRY_2_18 + ("ALLOCATED_GPUS", "TOTAL_CPU_CORES",
                                     "ALLOCATED_CPU_CORES", "TOTAL_CPU_MEMORY_BYTES",
                                     "ALLOCATED_CPU_MEMORY_BYTES")

PROFILES = {
    "2.18": {"cluster_version": "2.18.45", "create_status": 200, "delete_status": 204,
             "update_status": None,
             "grants": ("password", "refresh_token", "app_token", "exchange_token"),
             "expires_in": False, "external_token": True, "tenant_nodes": False,
             "node_telemetry": _TELEMETRY_2_18},
    "2.21": {"cluster_version": "2.21.12", "create_status": 202, "delete_status": 202,
             "update_status": 200,
             "grants": ("password", "refresh_token", "app_token", "exchange_token",
                        "client_credentials"),
             "expires_in": False, "external_token": True, "tenant_nodes": False,
             "node_telemetry": _TELEMETRY_2_21},
    "2.24": {"cluster_version": "2.24.10", "create_status": 202, "delete_status": 202,
             "update_status": 202,
             "grants": ("password", "refresh_token", "app_token", "exchange_token",
                        "client_credentials", "external_token_exchange"),
             "expires_in": True, "external_token": False, "tenant_nodes": True,
             "node_telemetry": _TELEMETRY_2_21},
}


def profile(version):
    try:
        return dict(PROFILES[version], version=version)
    except KeyError:
        raise ValueError("control plane %r: one of %s" % (version, ", ".join(sorted(PROFILES))))
