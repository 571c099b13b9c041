# Sourced by the shell suites and .ci/run: `install_debian_packages NAME...`
# installs Debian packages quietly, and keeps a package's service (nginx on port
# 80, a PostgreSQL cluster) from starting: the suites start their own, on
# loopback, with their own configuration.
install_debian_packages() {
    local created_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        created_policy=yes
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    if [ -n "$created_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
}
