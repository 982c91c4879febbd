# Stand-in for the official nginx image (see scripts/container-stand-ins.sh): Debian's nginx, configured from
# /etc/nginx/nginx.conf as the official image is, in the foreground, stopped gracefully by SIGQUIT.
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \
 && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
