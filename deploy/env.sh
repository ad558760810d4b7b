# Sourced by deploy/ scripts: how podman runs on these machines (no systemd, no registry).
DEPLOY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="$DEPLOY_DIR/containers.conf"
# The Debian mirror apt uses here (bookworm), for the locally made base images.
export DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export DEBIAN_SECURITY="${DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"
