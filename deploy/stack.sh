# Sourced by deploy/smoke and deploy/chaos: the stack of deploy/compose.yml built and started, and torn down
# on exit. Before sourcing: PROJECT, and a step() that prints a line.
# podman cannot run healthcheck timers without systemd here; its complaints about that are only noise.
exec 2> >(grep -v --line-buffered 'systemd connection' >&2)

if [ ! -x deploy/.tools/bin/podman-compose ]; then
    step "installing podman-compose into deploy/.tools"
    python3 -m venv deploy/.tools
    deploy/.tools/bin/pip install -q podman-compose
fi
COMPOSE=(deploy/.tools/bin/podman-compose --project-name "$PROJECT" -f deploy/compose.yml)
BALOOT_SECRET="${PROJECT}-$(head -c 18 /dev/urandom | base64 | tr -d '/+=')"
export BALOOT_SECRET

teardown() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        for c in api1 api2 worker1 worker2 migrate rabbitmq postgres postgres2; do
            echo "---- last lines of ${PROJECT}_${c}_1"; podman logs --tail 15 "${PROJECT}_${c}_1" 2>&1 || true
        done
    fi
    step "tearing down"
    "${COMPOSE[@]}" down -v -t 5 >/dev/null 2>&1 || true
    exit "$rc"
}
trap teardown EXIT
"${COMPOSE[@]}" down -v -t 5 >/dev/null 2>&1 || true      # leftovers of an interrupted run
# and its volumes, also one made again outside compose (deploy/chaos re-copies a node after a failover)
podman volume rm -f "${PROJECT}_pgdata" "${PROJECT}_pgdata2" "${PROJECT}_rabbitdata" >/dev/null 2>&1 || true

step "base images (deploy/base/build; kept when they exist)"
deploy/base/build

# pip inside the build uses the index this host's pip uses, and trusts the CA bundle this host trusts.
index="${PIP_INDEX_URL:-$(pip3 config get global.index-url 2>/dev/null || true)}"
index="${index:-https://pypi.org/simple}"
cert="${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}"
cert_args=()
[ -f "$cert" ] && cert_args=(--volume "$cert:/run/host-ca.crt:ro" --build-arg CA_BUNDLE=/run/host-ca.crt)
step "building localhost/baloot from deploy/Dockerfile (BASE=localhost/baloot-base, index $index)"
podman build -q --format docker --network host "${cert_args[@]}" \
    --build-arg BASE=localhost/baloot-base --build-arg BUILD_BASE=localhost/baloot-build \
    --build-arg PIP_INDEX_URL="$index" \
    -f deploy/Dockerfile -t localhost/baloot:latest . >/dev/null
size=$(podman image inspect localhost/baloot:latest --format '{{.Size}}')
step "image localhost/baloot: $((size / 1000000)) MB (base localhost/baloot-base: $(( $(podman image inspect localhost/baloot-base --format '{{.Size}}') / 1000000 )) MB)"
if podman run --rm --network host localhost/baloot:latest sh -c 'command -v gcc cc c++ make' 2>/dev/null; then
    step "FAILED: a compiler is left in the image"; exit 1
fi
podman run --rm --network host localhost/baloot:latest python3 -c "from services import compiled; import domain.table, domain.baloot.seam
loaded = compiled.loaded(); assert loaded and all(loaded.values()), loaded
print('the rules engine runs compiled,', len(loaded), 'modules')" \
    || { step "FAILED: the image's rules engine is not compiled"; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
    for _ in $(seq 1 300); do port_open "$1" && return 0; sleep 0.2; done
    step "FAILED: nothing answers on port $1"; return 1
}

step "starting PostgreSQL (21432), its synchronous standby (21433) and RabbitMQ (21672)"
"${COMPOSE[@]}" up -d --no-deps postgres rabbitmq >/dev/null
wait_port 21432
"${COMPOSE[@]}" up -d --no-deps postgres2 >/dev/null      # copies the primary (pg_basebackup), then streams
wait_port 21433
wait_port 21672
step "migrating (the one-shot migrate service)"
"${COMPOSE[@]}" up -d --no-deps migrate >/dev/null
rc=$(podman wait "${PROJECT}_migrate_1")
podman logs "${PROJECT}_migrate_1" 2>&1 | tail -3
[ "$rc" = 0 ] || { step "FAILED: migrate exited with $rc"; exit 1; }
