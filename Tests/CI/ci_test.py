#!/usr/bin/env python3
"""The CI files and the build report, checked for real.

1. action.yml and the examples under examples/ci validate against the published schemas
   check-jsonschema carries (vendor.github-actions, vendor.github-workflows, vendor.gitlab-ci),
   the workflow passes the action only inputs it declares, and the sharded examples (GitHub
   matrix, GitLab parallel:, Kubernetes Indexed Job) run as many shards as they declare jobs.
2. Reports of a clean build, a build with a failed photo under --strict (exit 1) and a build
   with a bad gallery.yml (exit 2) validate against docs/report.schema.json; a report with an
   unknown key or a missing count does not (the schema is strict enough to catch drift).
3. The action's shell steps run, in order, as a runner would run them (GITHUB_* files, inputs,
   step outputs, PATH additions), with the release tarball served from 127.0.0.1: the binary is
   installed after its SHA-256 is checked, the sample site is built, the report and the step
   summary are written, and the cache key is the same on a rebuild that changed nothing. A
   tarball whose checksum does not match stops the job.

    ci_test.py GALLERYGEN_DEBUG_BINARY DIST_TARBALL SITE
Prints one line per check and `N passed, N failed`; exits 1 if any check failed.
"""
import functools
import hashlib
import http.server
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK_JSONSCHEMA = os.path.join(os.path.dirname(sys.executable), "check-jsonschema")
results = []


def missing_entry(feed):
    """An entry, in the sample feed's own shape, naming a photo that is not there."""
    if feed and "imageUrl" in feed[0]:
        return {"id": "999", "title": "gone", "imageUrl": "photos/gone.jpg"}
    return {"id": 999, "title": "gone", "url": "photos/gone.jpg", "thumbnailUrl": "photos/gone.jpg"}


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("PASS " if condition else "FAIL ") + name + (f" ({detail})" if detail else ""), flush=True)


def validate(args):
    run = subprocess.run([CHECK_JSONSCHEMA, *args], capture_output=True, text=True)
    return run.returncode == 0, (run.stdout + run.stderr).strip()[-600:]


def check_ci_files():
    for schema, path in [
        ("vendor.github-actions", "action.yml"),
        ("vendor.github-workflows", "examples/ci/github-pages.yml"),
        ("vendor.gitlab-ci", "examples/ci/gitlab-ci.yml"),
        ("vendor.github-workflows", "examples/ci/github-shards.yml"),
        ("vendor.gitlab-ci", "examples/ci/gitlab-shards.yml"),
    ]:
        ok, detail = validate(["--builtin-schema", schema, os.path.join(ROOT, path)])
        check(f"{path} is valid against {schema}", ok, "" if ok else detail)
    # Each example is shown whole in the guide that explains it.
    for guide, paths in [("docs/publishing.md", ["examples/ci/github-pages.yml", "examples/ci/gitlab-ci.yml"]),
                         ("docs/remote-cache.md", ["examples/ci/github-shards.yml", "examples/ci/gitlab-shards.yml",
                                                   "examples/k8s/gallerygen-shards.yaml"])]:
        with open(os.path.join(ROOT, guide)) as f:
            text = f.read()
        for path in paths:
            with open(os.path.join(ROOT, path)) as f:
                check(f"{guide} shows {path} as it is", "```yaml\n" + f.read() + "```" in text)
    check_shard_examples()
    with open(os.path.join(ROOT, "action.yml")) as f:
        action = yaml.safe_load(f)
    with open(os.path.join(ROOT, "examples/ci/github-pages.yml")) as f:
        workflow = yaml.safe_load(f)
    steps = [s for job in workflow["jobs"].values() for s in job.get("steps", [])]
    ours = [s for s in steps if s.get("uses", "").split("@")[0].endswith("/gallerygen")]
    passed = set().union(*[set((s.get("with") or {}).keys()) for s in ours]) if ours else set()
    check("the workflow uses the action once, with inputs it declares", len(ours) == 1
          and passed <= set(action["inputs"].keys()), f"{passed}")


def check_shard_examples():
    """The sharded examples agree with themselves: as many shards as jobs, and a final build."""
    with open(os.path.join(ROOT, "examples/ci/github-shards.yml")) as f:
        workflow = yaml.safe_load(f)
    shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    args = [s.get("with", {}).get("args", "") for s in workflow["jobs"]["shard"]["steps"]]
    check("the GitHub matrix runs --shard K/N for K = 1..N", shards == list(range(1, len(shards) + 1))
          and any(f"--shard ${{{{ matrix.shard }}}}/{len(shards)}" in a for a in args), f"{shards} {args}")
    final = [s.get("with", {}).get("args", "") for s in workflow["jobs"]["build"]["steps"]]
    check("the GitHub build job follows the shards, without --shard", workflow["jobs"]["build"]["needs"] == "shard"
          and not any("--shard" in a for a in final))
    with open(os.path.join(ROOT, "examples/ci/gitlab-shards.yml")) as f:
        gitlab = yaml.safe_load(f)
    check("the GitLab shard job is parallel with --shard auto", gitlab["shard"]["parallel"] >= 2
          and any("--shard auto" in line for line in gitlab["shard"]["script"]))
    with open(os.path.join(ROOT, "examples/k8s/gallerygen-shards.yaml")) as f:
        job = yaml.safe_load(f)
    spec = job["spec"]
    container = spec["template"]["spec"]["containers"][0]
    check("the Kubernetes example is an Indexed Job whose --shard auto/N matches its completions",
          job["kind"] == "Job" and spec["completionMode"] == "Indexed"
          and f"auto/{spec['completions']}" in container["args"] and spec["parallelism"] == spec["completions"],
          f"{container['args']}")


class RemoteStore:
    """A remote cache with GET, HEAD and PUT, kept in memory, on 127.0.0.1."""

    def __init__(self):
        objects = self.objects = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = objects.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                if self.command == "GET" and body is not None:
                    self.wfile.write(body)

            do_HEAD = do_GET

            def do_PUT(self):
                objects[self.path] = self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/cache/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def build(binary, site, name, *extra):
    report = os.path.join(site, name + "-report.json")
    run = subprocess.run([binary, "build", site, "-q", "--report", report, *extra], capture_output=True, text=True)
    return run.returncode, report


def check_reports(binary, sample, work):
    schema = os.path.join(ROOT, "docs", "report.schema.json")
    site = os.path.join(work, "reports")
    shutil.copytree(sample, site, ignore=shutil.ignore_patterns("public", ".gallerygen-cache"))
    status, clean = build(binary, site, "clean")
    ok, detail = validate(["--schemafile", schema, clean])
    check("a clean build's report is valid", status == 0 and ok, detail if not ok else "")

    # A shard with a remote cache (a PUT store in this process): its report, with shard and
    # remote_cache, is valid; with the store down the shard exits 1 (its work would be lost).
    store = RemoteStore()
    status, shard = build(binary, site, "shard", "--shard", "1/2", "--remote-cache", store.url)
    ok, detail = validate(["--schemafile", schema, shard])
    with open(shard) as f:
        data = json.load(f)
    check("a shard's report (shard, remote_cache) is valid", status == 0 and ok and data["shard"]["count"] == 2
          and data["remote_cache"]["uploads"] > 0 and len(store.objects) > 0, detail if not ok else f"exit {status}")
    store.stop()
    status, down = build(binary, site, "shard-down", "--shard", "1/2", "--remote-cache", store.url)
    ok, detail = validate(["--schemafile", schema, down])
    with open(down) as f:
        data = json.load(f)
    check("a shard whose remote cache is down exits 1 with a valid report saying why",
          status == 1 and ok and "remote cache" in data.get("error", ""), detail if not ok else f"exit {status}")

    # One photo the feed names is missing: with --strict the build fails, with a report.
    with open(os.path.join(site, "feed.json")) as f:
        feed = json.load(f)
    feed.append(missing_entry(feed))
    with open(os.path.join(site, "feed.json"), "w") as f:
        json.dump(feed, f)
    status, strict = build(binary, site, "strict", "--strict")
    ok, detail = validate(["--schemafile", schema, strict])
    with open(strict) as f:
        data = json.load(f)
    check("a --strict build with a failed photo exits 1 with a valid report naming it",
          status == 1 and ok and data["exit_code"] == 1 and len(data["failures"]) == 1 and "error" in data,
          detail if not ok else f"exit {status}")

    with open(os.path.join(site, "gallery.yml"), "a") as f:
        f.write("\nconcurrency: lots\n")
    status, broken = build(binary, site, "broken")
    ok, detail = validate(["--schemafile", schema, broken])
    with open(broken) as f:
        data = json.load(f)
    check("a build with a bad gallery.yml exits 2 with a valid report saying why",
          status == 2 and ok and "concurrency" in data.get("error", ""), detail if not ok else f"exit {status}")

    with open(clean) as f:
        data = json.load(f)
    for name, mutate in [("an unknown key", lambda d: d.update(extra=1)),
                         ("a missing count", lambda d: d["counts"].pop("seeded")),
                         ("an error on a build that exited 0", lambda d: d.update(error="x"))]:
        bad = json.loads(json.dumps(data))
        mutate(bad)
        path = os.path.join(work, "bad-report.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        ok, _ = validate(["--schemafile", schema, path])
        check(f"the schema rejects a report with {name}", not ok)


class Runner:
    """Runs a composite action's `run:` steps as GitHub's runner would: expressions filled in,
    GITHUB_OUTPUT/GITHUB_PATH/GITHUB_STEP_SUMMARY files, outputs between steps."""

    def __init__(self, workspace, inputs, temp):
        self.workspace = workspace
        self.inputs = inputs
        self.temp = temp
        self.outputs = {}
        self.paths = []
        self.summary = os.path.join(temp, "step-summary.md")
        open(self.summary, "w").close()

    def expression(self, text):
        def evaluate(match):
            expr = match.group(1).strip()
            hashed = re.fullmatch(r"hashFiles\(format\('\{0\}/([^']+)', inputs\.([\w-]+)\)\)", expr)
            if hashed:
                path = os.path.join(self.workspace, self.inputs[hashed.group(2)], hashed.group(1))
                with open(path, "rb") as f:
                    return hashlib.sha256(f.read()).hexdigest()
            if expr.startswith("inputs."):
                return self.inputs[expr[len("inputs."):]]
            if expr == "runner.os":
                return "Linux"
            if expr == "github.action_repository":
                return ""  # empty in composite steps on real runners (actions/runner#2525)
            step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
            if step:
                return self.outputs.get(step.group(1), {}).get(step.group(2), "")
            raise ValueError(f"expression not understood by the test: {expr}")
        return re.sub(r"\$\{\{(.*?)\}\}", evaluate, str(text))

    def run(self, step):
        output_file = os.path.join(self.temp, "output")
        path_file = os.path.join(self.temp, "path")
        open(output_file, "w").close()
        open(path_file, "w").close()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update({
            "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_WORKSPACE": self.workspace,
            "GITHUB_OUTPUT": output_file, "GITHUB_PATH": path_file, "GITHUB_STEP_SUMMARY": self.summary,
            "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_TEMP": self.temp,
            "GITHUB_ACTION_PATH": "/home/runner/work/_actions/someone/gallerygen/v0.1.0",
            "PATH": os.pathsep.join(self.paths[::-1] + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]),
        })
        for key, value in (step.get("env") or {}).items():
            env[key] = self.expression(value)
        script = self.expression(step["run"])
        run = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script],
                             cwd=self.workspace, env=env, capture_output=True, text=True)
        with open(output_file) as f:
            self.outputs[step.get("id", step["name"])] = dict(
                line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        with open(path_file) as f:
            self.paths += [line.strip() for line in f if line.strip()]
        return run


def check_action(tarball, sample, work):
    with open(os.path.join(ROOT, "action.yml")) as f:
        action = yaml.safe_load(f)
    serve_dir = os.path.dirname(os.path.abspath(tarball))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=serve_dir)
    http.server.SimpleHTTPRequestHandler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/{os.path.basename(tarball)}"

    def job(name, download_url):
        workspace = os.path.join(work, name)
        temp = os.path.join(work, name + "-temp")
        os.makedirs(temp)
        shutil.copytree(sample, os.path.join(workspace, "site"),
                        ignore=shutil.ignore_patterns("public", ".gallerygen-cache"))
        inputs = {key: str(spec.get("default", "")) for key, spec in action["inputs"].items()}
        inputs.update({"site": "site", "download-url": download_url, "args": "--strict"})
        return Runner(workspace, inputs, temp)

    runner = job("runner", url)
    steps = action["runs"]["steps"]
    skipped = [s["uses"] for s in steps if "uses" in s]
    failed = None
    for step in steps:
        if "run" not in step:
            continue
        run = runner.run(step)
        if run.returncode != 0:
            failed = f"{step['name']}: exit {run.returncode}: {(run.stdout + run.stderr)[-800:]}"
            break
    check("the action's shell steps run to the end (cache steps are GitHub's own: "
          + ", ".join(skipped) + ")", failed is None, failed or "")
    build_outputs = runner.outputs.get("build", {})
    site_index = os.path.join(runner.workspace, "site", "public", "index.html")
    check("the binary from the tarball built the site", os.path.exists(site_index))
    report = os.path.join(runner.workspace, build_outputs.get("report", "missing"))
    ok, detail = validate(["--schemafile", os.path.join(ROOT, "docs", "report.schema.json"), report])
    check("the step wrote a valid report and named the output folder",
          ok and build_outputs.get("output") == "site/public", detail if not ok else str(build_outputs))
    with open(runner.summary) as f:
        summary = f.read()
    check("the step summary holds the build's counts", "photos" in summary.lower() and "|" in summary,
          summary[:200])
    key = build_outputs.get("cache-key", "")
    check("the cache key names the OS, the version and the site", key.startswith("gallerygen-Linux-0.1.0-"), key)

    build_step = next(s for s in steps if s.get("id") == "build")
    again = runner.run(build_step)
    check("a rebuild that changed nothing keeps the cache key (no new cache saved)",
          again.returncode == 0 and runner.outputs["build"].get("cache-key") == key,
          runner.outputs["build"].get("cache-key", ""))

    # Without download-url, the release of the action's own repository (read from its path).
    fake = os.path.join(work, "fake-bin")
    os.makedirs(fake)
    with open(os.path.join(fake, "curl"), "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do case "$a" in http*) echo "$a" >> "$CURL_LOG";; esac; done\nexit 22\n')
    os.chmod(os.path.join(fake, "curl"), 0o755)
    default = job("default-url", "")
    default.paths.append(fake)
    curl_log = os.path.join(work, "curl.log")
    os.environ["CURL_LOG"] = curl_log
    install = default.run(steps[0])
    with open(curl_log) as f:
        asked = f.read().split()
    check("without download-url the action fetches its own repository's release",
          install.returncode != 0 and asked[:1] == [
              "https://github.com/someone/gallerygen/releases/download/v0.1.0/gallerygen-0.1.0-linux-x86_64.tar.gz"],
          str(asked))

    # A build that fails on photos (--strict) fails the step, and the cache is still saved.
    strict = job("strict", url)
    with open(os.path.join(strict.workspace, "site", "feed.json")) as f:
        feed = json.load(f)
    feed.append(missing_entry(feed))
    with open(os.path.join(strict.workspace, "site", "feed.json"), "w") as f:
        json.dump(feed, f)
    outcomes = [strict.run(step).returncode for step in steps if "run" in step]
    check("a --strict build with a failed photo fails the job, and still names a cache key to save",
          outcomes[-1] == 1 and strict.outputs.get("build", {}).get("cache-key", "").startswith("gallerygen-Linux-"),
          f"{outcomes} {strict.outputs.get('build')}")

    # A tarball whose published checksum does not match is refused.
    bad_dir = os.path.join(work, "bad-release")
    os.makedirs(bad_dir)
    shutil.copy(tarball, bad_dir)
    with open(os.path.join(bad_dir, os.path.basename(tarball) + ".sha256"), "w") as f:
        f.write("0" * 64 + "  " + os.path.basename(tarball) + "\n")
    bad_server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=bad_dir))
    threading.Thread(target=bad_server.serve_forever, daemon=True).start()
    tampered = job("tampered", f"http://127.0.0.1:{bad_server.server_port}/{os.path.basename(tarball)}")
    install = tampered.run(steps[0])
    check("a tarball that does not match its SHA-256 stops the job", install.returncode != 0
          and not tampered.paths, (install.stdout + install.stderr)[-200:])
    server.shutdown()
    bad_server.shutdown()


def gitlab_job(path):
    """The `pages` job of a .gitlab-ci.yml as one shell script, as GitLab's runner would run it
    (its variables unless already set, then before_script and script, stopping at the first
    failure); scripts/dist-test.sh runs it in the clean Debian root."""
    with open(path) as f:
        config = yaml.safe_load(f)
    job = config["pages"]
    lines = ["set -eu"]
    for key, value in {**config.get("variables", {}), **job.get("variables", {})}.items():
        lines.append(f'[ -n "${{{key}:-}}" ] || {key}={shlex.quote(str(value))}; export {key}')
    for line in job.get("before_script", []) + job["script"]:
        lines.append("echo " + shlex.quote("$ " + line))
        lines.append(line)
    print("\n".join(lines))


def main():
    if sys.argv[1] == "--gitlab-job":
        gitlab_job(sys.argv[2])
        return
    binary, tarball, sample = sys.argv[1], sys.argv[2], sys.argv[3]
    binary = os.path.abspath(binary)
    with tempfile.TemporaryDirectory(prefix="gallerygen-ci-") as work:
        check_ci_files()
        check_reports(binary, os.path.abspath(sample), work)
        check_action(os.path.abspath(tarball), os.path.abspath(sample), work)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
