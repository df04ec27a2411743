#!/usr/bin/env bash
# Serve a folder over HTTP on 127.0.0.1 with nginx, as a photo host does: ETag and
# Last-Modified on every file, 304 to If-None-Match / If-Modified-Since, keep-alive, and an
# access log with status and bytes per request.
#
#   serve.sh start DIR PORT RUNDIR   (MAX_AGE=N adds Cache-Control: max-age=N; DAV=1 takes PUT
#                                     into DIR, as a remote cache: nginx's WebDAV module)
#   serve.sh stop RUNDIR
set -euo pipefail
case "${1:-}" in
start)
  dir=$(cd "$2" && pwd); port=$3; run=$(mkdir -p "$4" && cd "$4" && pwd)
  mkdir -p "$run/tmp"
  cat >"$run/nginx.conf" <<CONF
worker_processes 1;
pid $run/nginx.pid;
error_log $run/error.log warn;
events { worker_connections 1024; }
http {
  types { text/html html; text/css css; text/javascript js; image/jpeg jpg jpeg; image/png png; image/webp webp; application/json json; video/mp4 mp4; video/quicktime mov; video/webm webm; }
  default_type application/octet-stream;
  log_format counts '\$status \$body_bytes_sent \$request_uri \$request_method';
  access_log $run/access.log counts;
  client_body_temp_path $run/tmp; proxy_temp_path $run/tmp; fastcgi_temp_path $run/tmp;
  uwsgi_temp_path $run/tmp; scgi_temp_path $run/tmp;
  sendfile on; keepalive_requests 100000;
  server {
    listen 127.0.0.1:$port;
    root $dir;
    etag on;
    $( [ -n "${MAX_AGE:-}" ] && echo "add_header Cache-Control \"max-age=${MAX_AGE}\";" )
    $( [ -n "${DAV:-}" ] && echo "dav_methods PUT; create_full_put_path on; dav_access user:rw group:rw all:r; client_max_body_size 0;" )
  }
}
CONF
  : >"$run/access.log"
  nginx -c "$run/nginx.conf" -p "$run" -e "$run/error.log"
  for _ in $(seq 100); do curl -sS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break; sleep 0.05; done
  : >"$run/access.log"
  ;;
stop)
  [ -f "$2/nginx.pid" ] && kill "$(cat "$2/nginx.pid")" 2>/dev/null || true
  sleep 0.2
  ;;
*) echo "usage: serve.sh start DIR PORT RUNDIR | stop RUNDIR" >&2; exit 2 ;;
esac
