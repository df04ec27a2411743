"""Generate AWS SigV4 test cases for S3 (path-style), each signed by botocore's S3 signer.

Usage:  python sigv4_cases.py --count 300 --seed 7  > cases.json   (one JSON array on stdout)

Rules botocore (1.44.x, botocore.auth.S3SigV4Auth) applies, each checked by experiment
in verify_rules.py (next to this file):

URL / canonical URI
  * A boto3 S3 client builds a path-style URL as
        endpoint + "/" + bucket + "/" + percent_encode(key, safe="/~")
    i.e. the key's UTF-8 bytes (no Unicode normalisation) with everything except
    A-Z a-z 0-9 - _ . ~ / written as %XX (uppercase hex): space -> %20, + -> %2B,
    * -> %2A, ' ( ) ! $ , : @ ; = & % all encoded, ~ left as is.
  * S3SigV4Auth uses the URL's path EXACTLY as it appears in the URL (urlsplit(url).path)
    as the canonical URI: no decoding, no re-encoding (so no double encoding), no removal
    of "." / ".." segments, "//" kept, trailing "/" kept, %7e stays %7e, an unencoded
    character would stay unencoded. (The generic SigV4Auth would instead normalise and
    encode the path a second time; it is NOT what S3 uses.) An empty path stays empty.
  * botocore sends the URL's path+query byte-for-byte as the HTTP request target, so
    "url" in each case is both what was signed and what goes on the wire. (That holds for
    URLs encoded as above. botocore's HTTP layer, urllib3, would uppercase a lowercase %xx
    and cut the path at a raw ";" AFTER signing, so always use uppercase hex and encode ";".)
Canonical query
  * Taken from the URL's raw query: split on "&", each item split at its first "="
    (an item without "=" gets value ""), NOT decoded or re-encoded, then sorted by
    (key, value) as encoded strings (plain byte/ASCII order; repeated keys ordered by
    value), joined as "k=v" with "&". "?uploads" -> "uploads=", "?k=" -> "k=".
    No query -> empty line.
  * So the URL's query must already be encoded the way boto3 does it
    (percent_encode_sequence): only A-Z a-z 0-9 - _ . ~ unencoded, space -> %20 (never "+"),
    "/" -> %2F, "+" -> %2B, "=" -> %3D, "&" -> %26, UTF-8 for non-ASCII.
Signed headers
  * Every header in the request at signing time, EXCEPT this blacklist: baggage,
    connection, expect, keep-alive, proxy-authenticate, proxy-authorization, te,
    traceparent, tracestate, trailer, transfer-encoding, upgrade, user-agent,
    x-amzn-trace-id. Any old Authorization header is removed first.
  * Plus "host", derived from the URL when no Host header is set: hostname lowercased,
    ":port" appended only if the port is not the scheme's default (80 http, 443 https).
  * Plus the headers the signer adds itself: x-amz-date (the timestamp),
    x-amz-content-sha256 (see below) and, with a session token, x-amz-security-token.
  * content-length is signed if it is present at signing time; a boto3 client adds it only
    after signing, so boto3's requests do not sign it. The cases here carry no
    content-length (nor user-agent in most cases; where a case has a User-Agent header,
    botocore leaves it unsigned).
  * Caution: if a "Date" header is present botocore signs a rewritten Date INSTEAD of
    adding X-Amz-Date. The cases never carry Date.
Header canonicalisation
  * name: lowercased; headers sorted by lowercased name; SignedHeaders = the names
    joined by ";".
  * value: " ".join(value.split()): leading/trailing whitespace removed and every internal
    run of whitespace (spaces, and also tabs etc.) collapsed to one space.
Payload hash
  * S3SigV4Auth always (re)sets X-Amz-Content-SHA256 itself: hex sha256 of the body
    (e3b0c442...b855 for an empty body), or UNSIGNED-PAYLOAD when payload signing is off
    (here: client config s3.payload_signing_enabled=False). The canonical request's last
    line is that same value.
String to sign / Authorization
  * "AWS4-HMAC-SHA256\n" + amz_date + "\n" + yyyymmdd/region/s3/aws4_request + "\n"
    + hex(sha256(canonical_request)).
  * Authorization: "AWS4-HMAC-SHA256 Credential=ACCESS/yyyymmdd/region/s3/aws4_request,
    SignedHeaders=a;b;c, Signature=hex" (", " between the three parts).

Each case (JSON object):
  method, url                : exactly what botocore signed (and would send)
  headers                    : the request's headers BEFORE signing, names as given. They
                               never include host, x-amz-date, x-amz-content-sha256,
                               x-amz-security-token or authorization: the signer must add
                               host (from the URL, rule above) and those x-amz-* headers
                               itself. A User-Agent here must not be signed.
  region, service ("s3"), access_key, secret_key, session_token (or null), amz_date,
  payload_sha256             : the x-amz-content-sha256 value (hex or UNSIGNED-PAYLOAD)
  body_base64                : the body whose hash that is (empty for GET/HEAD)
  expected_authorization, expected_canonical_request, expected_string_to_sign: botocore's own
  headers_after_signing      : all headers on the request after signing (incl. Authorization;
                               the User-Agent, if any, is there but unsigned)
"""
import argparse
import base64
import datetime
import json
import random
import sys
import unicodedata

import botocore.auth
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.utils import percent_encode, percent_encode_sequence

ENDPOINTS = [
    "http://127.0.0.1:9000", "http://localhost:4566", "http://127.0.0.1",  # with / without port
    "https://s3.eu-central-1.amazonaws.com", "https://0123abcd.r2.cloudflarestorage.com",
    "http://MinIO.Example:9000",  # upper case host: signed host is lowercased
    "http://localhost:80", "https://s3.example.com:443",  # default port: not in signed host
]
REGIONS = ["us-east-1", "eu-central-1", "auto"]
BUCKETS = ["gallerygen-cache", "my.bucket", "b-1"]
KEY_PARTS = [
    "photo.jpg", "a b", "a  b ", "x+y", "k=v", "a&b", "100%", "~tilde", "Ünïcödé/日本/фото",
    unicodedata.normalize("NFD", "Ünïcödé"),  # decomposed form: bytes differ from NFC
    "😀🎉", "a//b", ".", "..", "*", "'", "(", ")", "!", "$", ",", ":@;", "#hash", "?q",
    "thumbs/640", "index.html", "-_.", "[x]", "{y}", "a\"b", "tab\tsep",
]
QUERIES = [
    [], [], [],
    [("list-type", "2"), ("prefix", "a b"), ("continuation-token", "x/y+z")],
    [("uploads", None)],                       # key without a value: "?uploads"
    [("uploadId", "abc/123+=="), ("partNumber", "3")],
    [("tag", "b"), ("tag", "a"), ("tag", "A"), ("tag", "")],  # repeated keys
    [("prefix", "Ünïcödé/日本/"), ("delimiter", "/")],       # unicode values
    [("versionId", "v~1.2_3-4"), ("x-id", "GetObject")],
    [("acl", None), ("empty", "")],
    [("max-keys", "1000"), ("start-after", "a&b=c;d")],
]
CONTENT_TYPES = ["image/jpeg", "text/html; charset=utf-8", "application/octet-stream", "image/avif"]
META_VALUES = ["plain", "  leading", "trailing   ", "in   ternal  runs", "  all   of  them  ", "a,b", "x=y; z"]
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def make_query(rng):
    """Encode a query the way boto3 does; items with value None are written as bare keys."""
    parts = []
    for key, value in rng.choice(QUERIES):
        parts.append(percent_encode(key) if value is None else percent_encode_sequence([(key, value)]))
    if len(parts) > 1 and rng.random() < 0.5:
        rng.shuffle(parts)  # wire order must not matter for the canonical query
    return "?" + "&".join(parts) if parts else ""


def make_headers(rng, method):
    headers = {}
    if method == "PUT" or rng.random() < 0.2:
        headers[rng.choice(["Content-Type", "content-type", "CONTENT-TYPE"])] = rng.choice(CONTENT_TYPES)
    for i in range(rng.choice([0, 0, 1, 2, 3])):
        name = rng.choice(["x-amz-meta-", "X-Amz-Meta-", "x-AMZ-meta-"]) + rng.choice(["foo", "Bar-Baz", "n"]) + str(i)
        headers[name] = rng.choice(META_VALUES)
    if rng.random() < 0.2:
        headers["Cache-Control"] = rng.choice(["max-age=31536000, immutable", "no-cache"])
    if rng.random() < 0.1:
        headers["User-Agent"] = "gallerygen/1.0"  # blacklisted: botocore does not sign it
    return headers


def make_case(rng):
    method = rng.choice(["GET", "HEAD", "PUT"])
    endpoint = rng.choice(ENDPOINTS)
    bucket = rng.choice(BUCKETS)
    if method != "PUT" and rng.random() < 0.1:
        path = "/" + bucket + rng.choice(["", "/"])  # bucket-level request (listing)
    else:
        key = "/".join(rng.choice(KEY_PARTS) for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.15:
            key += "/"  # trailing slash
        path = "/" + bucket + "/" + percent_encode(key, safe="/~")  # as boto3's serializer
    url = endpoint + path + make_query(rng)

    body = rng.randbytes(rng.randint(0, 64)) if method == "PUT" else b""
    sign_payload = rng.random() < 0.6
    region = rng.choice(REGIONS)
    access_key = "AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
    secret_key = "".join(rng.choice(B64) for _ in range(40))
    if rng.random() < 0.3:  # make sure '/' and '+' occur
        secret_key = secret_key[:10] + "/+" + secret_key[12:]
    token = None
    if rng.random() < 0.25:
        token = "".join(rng.choice(B64) for _ in range(rng.randint(40, 120))) + rng.choice(["", "=", "=="])
    when = datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=rng.randrange(11 * 365 * 86400))
    if rng.random() < 0.05:
        when = datetime.datetime(2026, 12, 31, 23, 59, 59)  # year boundary

    headers = make_headers(rng, method)
    req = AWSRequest(method=method, url=url, headers=dict(headers), data=body)
    req.context["client_config"] = Config(s3={"payload_signing_enabled": sign_payload})
    auth = S3SigV4Auth(Credentials(access_key, secret_key, token), "s3", region)

    # Record botocore's own canonical request / string to sign while it signs.
    seen = {}
    cr_fn, sts_fn = auth.canonical_request, auth.string_to_sign
    auth.canonical_request = lambda r: seen.setdefault("cr", cr_fn(r))
    auth.string_to_sign = lambda r, c: seen.setdefault("sts", sts_fn(r, c))
    botocore.auth.get_current_datetime = lambda remove_tzinfo=True: when  # fixed clock
    auth.add_auth(req)

    authz = req.headers["Authorization"]
    assert authz.endswith("Signature=" + auth.signature(seen["sts"], req))  # self-check
    return {
        "method": method,
        "url": url,
        "headers": headers,
        "region": region,
        "service": "s3",
        "access_key": access_key,
        "secret_key": secret_key,
        "session_token": token,
        "amz_date": req.headers["X-Amz-Date"],
        "payload_sha256": req.headers["X-Amz-Content-SHA256"],
        "body_base64": base64.b64encode(body).decode(),
        "expected_authorization": authz,
        "expected_canonical_request": seen["cr"],
        "expected_string_to_sign": seen["sts"],
        "headers_after_signing": {k: v for k, v in req.headers.items()},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [make_case(rng) for _ in range(args.count)]
    json.dump(cases, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
