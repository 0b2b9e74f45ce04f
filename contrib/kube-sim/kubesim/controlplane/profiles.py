"""What differs between the emulated control-plane releases: the grants
the token endpoint accepts, the status of an accepted create and delete,
whether the token answer carries expiresIn, and where nodes are listed."""

PROFILES = {
    "2.18": {"cluster_version": "2.18.45", "create_status": 200, "delete_status": 204,
             "grants": ("password", "refresh_token", "app_token", "exchange_token"),
             "expires_in": False, "external_token": True, "tenant_nodes": False},
    "2.21": {"cluster_version": "2.21.12", "create_status": 202, "delete_status": 202,
             "grants": ("password", "refresh_token", "app_token", "exchange_token",
                        "client_credentials"),
             "expires_in": False, "external_token": True, "tenant_nodes": False},
    "2.24": {"cluster_version": "2.24.10", "create_status": 202, "delete_status": 202,
             "grants": ("password", "refresh_token", "app_token", "exchange_token",
                        "client_credentials", "external_token_exchange"),
             "expires_in": True, "external_token": False, "tenant_nodes": True},
}


def profile(version):
    try:
        return dict(PROFILES[version], version=version)
    except KeyError:
        raise ValueError("control plane %r: one of %s" % (version, ", ".join(sorted(PROFILES))))
