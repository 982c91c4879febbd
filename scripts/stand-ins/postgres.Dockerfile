# Stand-in for the official postgres image (see scripts/container-stand-ins.sh): Debian's PostgreSQL, with an
# entrypoint that honours POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB and PGDATA as the official one does.
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \
 && pg_dropcluster --stop "$(ls /usr/lib/postgresql)" main \
 && ln -s /usr/lib/postgresql/"$(ls /usr/lib/postgresql)"/bin /usr/lib/postgresql/bin
ENV PATH=/usr/lib/postgresql/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# As the official image: SIGINT is PostgreSQL's fast shutdown.
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
