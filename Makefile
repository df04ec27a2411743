# gallerygen: every set-up step lives here, so that a fresh Debian machine with the Swift
# toolchain needs only `make demo` or `make test`.

SWIFT ?= swift
SITE ?= Site
# C libraries (headers for the build: libvips, cmark-gfm, SQLite for the build store), the `vips` tools (tests and benchmarks make images with them).
APT_PACKAGES := pkg-config libvips-dev libvips-tools libcmark-gfm-dev libcmark-gfm-extensions-dev libsqlite3-dev
# The benchmark's photo host, downloader and timer.
BENCH_PACKAGES := nginx-light curl time
BENCH_COUNT ?= 200
# BENCH_SCENARIO=10k runs the 10,000-entry rebuild scenario (bench/run-10k.sh) instead; ci a
# fresh runner seeded from the live site (bench/run-ci.sh); visitor the page in a browser.
# shards: one build over 4 shards and a remote cache (bench/run-shards.sh, SHARDS_COUNT photos);
# 100k: 100,000 entries against the 10,000-entry build (bench/run-100k.sh); hostile: memory
# against a store answering huge objects, time of the largest intro (bench/run-hostile.sh);
# video: 20 clips against the same ffmpeg command lines run alone, and a no-change rebuild
# (bench/run-video.sh).
BENCH_SCENARIO ?= photos
SHARDS_COUNT ?= 1000
# The browser test: Debian's Chromium and its driver, Selenium from PyPI in a venv under .build.
BROWSER_PACKAGES := chromium chromium-driver python3-venv
BROWSER_VENV := .build/browser-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN_DEBUG := .build/debug/gallerygen
# The release tarball (make dist) and what checks it: debootstrap for a clean Debian 12 root,
# check-jsonschema and PyYAML (in the same venv as the browser test) for the CI files and reports.
VERSION := $(shell sed -n 's/^ *package static let current = "\(.*\)"$$/\1/p' Sources/GalleryCore/GalleryVersion.swift)
DIST_DIR := .build/dist
DIST_TARBALL := $(DIST_DIR)/gallerygen-$(VERSION)-linux-$(shell uname -m).tar.gz
DIST_PACKAGES := binutils debootstrap zstd python3

.PHONY: all deps test-deps bench-deps browser-deps ci-deps build release dist dist-test ci-test demo test browser-test screenshots lint format bench vips-threads clean

all: build

## deps: install the Debian packages the build needs, if any is missing.
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(APT_PACKAGES)"

bench-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BENCH_PACKAGES)"

install-packages:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## Every module a target imports must be one it declares (SwiftPM's check, an error here), so
## that a dependency is never reached through another target's by accident.
IMPORT_CHECK := --explicit-target-dependency-import-check error

build: deps
	$(SWIFT) build $(IMPORT_CHECK)

## release: the Swift runtime linked in, as `make dist` packs it (one release build for both).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product gallerygen

## dist: the release binary and the default theme as $(DIST_TARBALL), with its SHA-256.
dist: release
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DIST_PACKAGES)"
	PROJECT_DIR=. scripts/dist.sh .build/release $(DIST_DIR)

## dist-test: the tarball on a clean Debian 12 root (debootstrap) with only the runtime libraries:
## it builds the sample site there, and so does the GitLab example's job.
dist-test: dist ci-deps
	$(BROWSER_VENV)/bin/python Tests/CI/ci_test.py --gitlab-job examples/ci/gitlab-ci.yml > $(DIST_DIR)/gitlab-job.sh
	$(SUDO) env GITLAB_JOB=$(DIST_DIR)/gitlab-job.sh SITE_DIR=$(SITE) scripts/dist-test.sh $(DIST_TARBALL)

## ci-test: action.yml and the example workflows against their published schemas, reports against
## docs/report.schema.json, and the action's shell steps run with the tarball.
ci-deps: browser-deps
	@$(BROWSER_VENV)/bin/python -c "import yaml, check_jsonschema" 2>/dev/null \
		|| $(BROWSER_VENV)/bin/pip install --quiet check-jsonschema pyyaml

ci-test: ci-deps build dist
	$(BROWSER_VENV)/bin/python Tests/CI/ci_test.py $(BIN_DEBUG) $(DIST_TARBALL) $(SITE)

## demo: build the sample site in Site/ and say where it is.
demo: build
	$(BIN_DEBUG) build $(SITE)
	@echo
	@echo "Open $(abspath $(SITE))/public/index.html in a browser."

## test: the whole test suite. The remote cache's tests need nginx (WebDAV) and, for S3, moto's
## server and botocore (PyPI, in the same venv as the browser test); the WebDAV feed's, WsgiDAV. They run after the rest:
## each runs four builds at once as separate processes, which on a 2-core machine would starve
## the tests that time transfers. exiftool writes the photo metadata the tests read back; ffmpeg makes
## and transcodes the test clips.
TEST_PACKAGES := nginx-light python3-venv libimage-exiftool-perl ffmpeg
REMOTE_TESTS := RemoteCacheTests|S3RemoteCacheTests|SigV4Tests|S3FeedTests|VideoRemoteTests
test-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(TEST_PACKAGES)"
	@[ -x $(BROWSER_VENV)/bin/python ] || python3 -m venv $(BROWSER_VENV)
	@$(BROWSER_VENV)/bin/python -c "import moto.server, boto3, botocore, wsgidav, cheroot" 2>/dev/null \
		|| $(BROWSER_VENV)/bin/pip install --quiet 'moto[server]' boto3 wsgidav cheroot

test: test-deps
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	$(SWIFT) test --skip-build --skip '$(REMOTE_TESTS)'
	$(SWIFT) test --skip-build --filter '$(REMOTE_TESTS)'

## browser-test: gallerygen serve in headless Chromium (lazy loading, layout, live reload).
browser-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BROWSER_PACKAGES)"
	@[ -x $(BROWSER_VENV)/bin/python ] || python3 -m venv $(BROWSER_VENV)
	@$(BROWSER_VENV)/bin/python -c "import selenium, axe_selenium_python" 2>/dev/null \
		|| $(BROWSER_VENV)/bin/pip install --quiet selenium axe-selenium-python

## browser-test also runs the theme's checks (rows, viewer, photo pages, cancelled transfers,
## transparency, axe-core) on a gallery of the sample site's photos.
browser-test: browser-deps build
	$(BROWSER_VENV)/bin/python Tests/Browser/browser_test.py $(BIN_DEBUG)
	$(BROWSER_VENV)/bin/python Tests/Browser/theme_test.py $(BIN_DEBUG) $(SITE)/photos

## screenshots: the pictures of the theme in docs/themes.md and the README (1280x800, 390x844, dark), by the theme test.
screenshots: browser-deps build
	$(BROWSER_VENV)/bin/python Tests/Browser/theme_test.py $(BIN_DEBUG) $(SITE)/photos docs/screenshots

## lint: swift format's checks, with the checked-in .swift-format.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

## bench: the reference pipeline and gallerygen's cold, no-change and one-change builds on
## BENCH_COUNT real 12-megapixel photos served by nginx (BENCHMARKS.md).
bench: bench-deps release
	@if [ "$(BENCH_SCENARIO)" = 10k ]; then bench/run-10k.sh; \
	elif [ "$(BENCH_SCENARIO)" = ci ]; then BENCH_COUNT=$(BENCH_COUNT) bench/run-ci.sh; \
	elif [ "$(BENCH_SCENARIO)" = shards ]; then BENCH_COUNT=$(SHARDS_COUNT) bench/run-shards.sh; \
	elif [ "$(BENCH_SCENARIO)" = 100k ]; then bench/run-100k.sh; \
	elif [ "$(BENCH_SCENARIO)" = folder ]; then bench/run-folder-100k.sh; \
	elif [ "$(BENCH_SCENARIO)" = hostile ]; then bench/run-hostile.sh; \
	elif [ "$(BENCH_SCENARIO)" = video ]; then $(MAKE) --no-print-directory install-packages PACKAGES=ffmpeg \
		&& bench/run-video.sh; \
	elif [ "$(BENCH_SCENARIO)" = visitor ]; then $(MAKE) --no-print-directory browser-deps \
		&& $(BROWSER_VENV)/bin/python bench/visitor.py .build/release/gallerygen $(SITE)/photos bench-work; \
	else BENCH_COUNT=$(BENCH_COUNT) bench/run.sh; fi

## vips-threads: does this machine's libvips/liborc crash when threads compile Orc programs at
## once, and does gallerygen's guard avoid it? (bench/vips-threads.c; a few minutes)
vips-threads: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="gcc"
	bench/vips-threads.sh

clean:
	rm -rf .build bench-work $(SITE)/public $(SITE)/.gallerygen-cache
