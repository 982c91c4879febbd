# Stand-in for axllent/mailpit (see scripts/container-stand-ins.sh): SMTP on 1025, the web UI and the parts of
# mailpit's API that the container test reads on 8025.
ARG NODE_IMAGE
FROM ${NODE_IMAGE}
COPY mail-catcher.mjs /app/mail-catcher.mjs
USER node
EXPOSE 1025 8025
CMD ["node", "/app/mail-catcher.mjs"]
