"""Start a local S3 (moto_server) that checks SigV4 signatures, with one bucket and one IAM user.

Usage:  python s3_server.py [--bucket gallerygen-cache] [--log FILE]

Prints ONE line of JSON on stdout once ready:
  {"endpoint": "http://127.0.0.1:PORT", "bucket": ..., "region": "us-east-1",
   "access_key": ..., "secret_key": ...}
then runs until its stdin is closed (or SIGTERM/SIGINT), and stops moto_server
(its whole process group). moto's output goes to stderr (or --log FILE), never stdout.

Auth: moto checks signatures only after INITIAL_NO_AUTH_ACTION_COUNT requests. The set-up
makes exactly 3 unauthenticated IAM calls (create user, put its policy, create its key);
everything after that, bucket creation included, must be signed with the user's key.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

import boto3
from botocore.config import Config

SETUP_CALLS = 3  # create_user, put_user_policy, create_access_key
ALLOW_ALL = json.dumps({"Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_listening(port, proc, timeout=60):
    """Poll with plain TCP connects (they are not requests, so they use up no no-auth calls)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"moto_server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("moto_server did not start in time")


def stop(proc):
    """Terminate moto_server's whole process group; SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


def set_up(endpoint, bucket, region):
    cfg = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1})
    # Unauthenticated part: any credentials are accepted for the first SETUP_CALLS requests.
    iam = boto3.client("iam", endpoint_url=endpoint, region_name=region,
                       aws_access_key_id="setup", aws_secret_access_key="setup", config=cfg)
    iam.create_user(UserName="gallerygen")
    iam.put_user_policy(UserName="gallerygen", PolicyName="allow-all", PolicyDocument=ALLOW_ALL)
    key = iam.create_access_key(UserName="gallerygen")["AccessKey"]
    # From here on, signatures are checked: create the bucket as the new user.
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=region, config=cfg,
                      aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    s3.create_bucket(Bucket=bucket)
    return key["AccessKeyId"], key["SecretAccessKey"]


def main():
    ap = argparse.ArgumentParser(description="Local signature-checking S3 (moto) for tests.")
    ap.add_argument("--bucket", default="gallerygen-cache")
    ap.add_argument("--log", help="write moto_server's output to this file instead of stderr")
    args = ap.parse_args()
    region = "us-east-1"

    # A signal just ends the wait below; the finally clause then stops moto_server.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(0))

    started = time.monotonic()
    port = free_port()
    log = open(args.log, "ab") if args.log else sys.stderr
    moto = os.path.join(os.path.dirname(sys.executable), "moto_server")
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT=str(SETUP_CALLS))
    proc = subprocess.Popen([moto, "-H", "127.0.0.1", "-p", str(port)], env=env, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log, start_new_session=True)  # own process group
    try:
        wait_until_listening(port, proc)
        endpoint = f"http://127.0.0.1:{port}"
        access_key, secret_key = set_up(endpoint, args.bucket, region)
        print(json.dumps({"endpoint": endpoint, "bucket": args.bucket, "region": region,
                          "access_key": access_key, "secret_key": secret_key}), flush=True)
        print(f"s3_server: ready in {time.monotonic() - started:.1f}s", file=sys.stderr, flush=True)
        while sys.stdin.buffer.read(65536):  # run until stdin is closed
            pass
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
