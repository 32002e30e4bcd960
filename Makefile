# Set-up and everyday commands. `make demo` and `make test` work on a fresh Debian 12
# machine with the Swift toolchain: they install what is missing first.
SWIFT ?= $(shell command -v swift || echo /opt/swift/usr/bin/swift)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := libopencv-dev libopencv-contrib-dev libeigen3-dev libceres-dev pkg-config opencv-doc python3-opencv fonts-noto-cjk libzstd-dev liblz4-dev libsqlite3-dev
# Debian's chromium: a test opens `--report`'s page in a real headless browser; iproute2 brings up
# loopback in the batch tests' own network namespace, and python3-venv holds their Ray.
TEST_PACKAGES := chromium iproute2 python3-venv
BENCH_PACKAGES := python3-venv
# Open3D for the planes baseline, in a virtual environment that also sees Debian's OpenCV.
BENCH_PYTHON := .build/bench-python
OPEN3D := open3d-cpu==0.20.0
PC_DIR := /usr/local/lib/pkgconfig
OUT := out

# waymark-batch (batch/): Ray and pyarrow, pinned, in their own virtual environment; its tests run
# Ray clusters inside a loopback-only network namespace, since Ray binds to the machine's outside
# address whenever there is one (ray#26293). As root `unshare -n`; otherwise in a user namespace.
BATCH_PYTHON := .build/batch-python
LOOPBACK_ONLY := unshare $(if $(SUDO),-rn,-n) sh -c 'ip link set lo up && exec "$$0" "$$@"'

# rosbags (pure Python, pinned) writes the ROS 2 bags the bag tests read, in its own virtual
# environment; it sees Debian's python3-opencv to decode the images it packs.
BAG_PYTHON := .build/bag-python

.PHONY: setup test-setup bench-setup batch-setup bag-setup build demo test tsan sanitize fuzz bench bench-batch clean

# Debian packages, then Waymark's own pkg-config files (CSupport/pkgconfig): waymark-opencv.pc
# links only the OpenCV modules the shim uses; waymark-ceres.pc stands in for the one Debian's
# libceres-dev lacks.
setup:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
	@for pc in waymark-opencv.pc waymark-ceres.pc; do \
	  cmp -s CSupport/pkgconfig/$$pc $(PC_DIR)/$$pc || ($(SUDO) mkdir -p $(PC_DIR) && $(SUDO) cp CSupport/pkgconfig/$$pc $(PC_DIR)/); \
	done

build: setup
	$(SWIFT) build -c release

demo: build
	.build/release/waymark demo --output $(OUT)/demo

test-setup: setup
	@dpkg -s $(TEST_PACKAGES) >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(TEST_PACKAGES) >/dev/null)

batch-setup: $(BATCH_PYTHON)/.installed
$(BATCH_PYTHON)/.installed: batch/requirements.txt batch/requirements-test.txt batch/pyproject.toml
	@dpkg -s python3-venv >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null)
	@[ -x $(BATCH_PYTHON)/bin/python ] || /usr/bin/python3 -m venv $(BATCH_PYTHON)
	$(BATCH_PYTHON)/bin/pip install -q -r batch/requirements-test.txt
	$(BATCH_PYTHON)/bin/pip install -q --no-deps -e batch
	@touch $@

bag-setup: $(BAG_PYTHON)/.installed
$(BAG_PYTHON)/.installed: Datasets/requirements-bags.txt
	@dpkg -s python3-venv >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null)
	@[ -x $(BAG_PYTHON)/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $(BAG_PYTHON)
	$(BAG_PYTHON)/bin/pip install -q -r Datasets/requirements-bags.txt
	@touch $@

test: test-setup batch-setup bag-setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	cd batch && $(LOOPBACK_ONLY) ../$(BATCH_PYTHON)/bin/python -m pytest -q -rs

# The session's two threads share the Session object (see Session.process), so ThreadSanitizer
# checks what the compiler cannot: the tests that run sessions and trackers, then a `process`
# run over the TUM excerpt (interrupted, relocalized, saving a map), in their own build.
DATASETS ?= $(or $(WAYMARK_DATASETS),../shared/datasets)
TUM_EXCERPT := $(DATASETS)/tum_fr1_xyz_excerpt
TUM_RUN := process $(TUM_EXCERPT) --intrinsics 517.3,516.5,318.6,255.3 --interrupt 10:5 --place lamp:3:320,240 --quiet
TSAN_BUILD := .build/tsan
tsan: test-setup
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path $(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path $(TSAN_BUILD) \
		--filter 'WaymarkTests|WorldTrackerTests'
	@if [ -d $(TUM_EXCERPT) ]; then mkdir -p $(OUT)/tsan && set -x && TSAN_OPTIONS=halt_on_error=1 \
		$(TSAN_BUILD)/debug/waymark $(TUM_RUN) --save-map $(OUT)/tsan/map.waymap --output $(OUT)/tsan/process.jsonl; \
	else echo "skipped the process run: no $(TUM_EXCERPT)"; fi

# AddressSanitizer over the whole test suite (Swift, and the C++ shim, which SwiftPM compiles
# with the same flag), plus UndefinedBehaviorSanitizer on the shim (swiftc has no UBSan on Linux;
# its runtime is linked through clang), in their own build; then `process` runs under both: the
# TUM excerpt (surfaces, map, interruption, relocalization, annotated video, report) and a video
# with a reference image.
SANITIZE_BUILD := .build/sanitize
SANITIZE_FLAGS := --sanitize=address -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined \
	-Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined --scratch-path $(SANITIZE_BUILD)
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize: test-setup
	$(SWIFT) build --build-tests $(SANITIZE_FLAGS)
	$(SANITIZE_ENV) $(SWIFT) test --skip-build $(SANITIZE_FLAGS)
	@if [ -d $(TUM_EXCERPT) ]; then mkdir -p $(OUT)/sanitize && set -x && \
		$(SANITIZE_ENV) $(SANITIZE_BUILD)/debug/waymark $(TUM_RUN) --save-map $(OUT)/sanitize/map.waymap \
			--trajectory $(OUT)/sanitize/trajectory.txt --annotate $(OUT)/sanitize/annotated.mp4 \
			--report $(OUT)/sanitize/report.html --output $(OUT)/sanitize/process.jsonl && \
		$(SANITIZE_ENV) $(SANITIZE_BUILD)/debug/waymark process $(DATASETS)/opencv_samples/box.mp4 \
			--references $(DATASETS)/opencv_samples/box.png --output $(OUT)/sanitize/video.jsonl --quiet; \
	else echo "skipped the process runs: no $(TUM_EXCERPT)"; fi

# libFuzzer over the file readers (Tests/Fuzz: manifest, PLY, PCD, images, TUM lists and
# trajectories, .waymap), under AddressSanitizer, FUZZ_SECONDS each, seeded from the shared
# datasets (Datasets/fuzz-seeds.py); fails if any target finds a crash.
FUZZ_BUILD := .build/fuzz
FUZZ_SECONDS ?= 60
fuzz: build
	cd Tests/Fuzz && $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer \
		--scratch-path ../../$(FUZZ_BUILD)
	@[ -d $(FUZZ_BUILD)/seeds ] || /usr/bin/python3 Datasets/fuzz-seeds.py $(DATASETS) $(FUZZ_BUILD)/seeds .build/release/waymark
	Tests/Fuzz/fuzz.sh $(FUZZ_SECONDS)

bench-setup: setup bag-setup
	@dpkg -s $(BENCH_PACKAGES) >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(BENCH_PACKAGES) >/dev/null)
	@[ -x $(BENCH_PYTHON)/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $(BENCH_PYTHON)
	@$(BENCH_PYTHON)/bin/python -c 'import open3d' 2>/dev/null || $(BENCH_PYTHON)/bin/pip install -q $(OPEN3D)

# A clean release build: incremental ones can keep a stale struct layout across the
# re-exporting Waymark module (swiftlang/swift#89636) and crash, or keep stale code; see
# docs/ARCHITECTURE.md.
bench: bench-setup
	rm -rf "$$($(SWIFT) build -c release --show-bin-path)"
	$(SWIFT) build -c release
	mkdir -p $(OUT)
	.build/release/waymark-bench detection --json $(OUT)/detection-figures.json
	.build/release/waymark-bench planes --json $(OUT)/planes-figures.json
	.build/release/waymark-bench relocalization --json $(OUT)/relocalization-figures.json
	.build/release/waymark-bench session --json $(OUT)/session-figures.json
	.build/release/waymark-bench tracking --json $(OUT)/tracking-figures.json
	.build/release/waymark-bench light --json $(OUT)/light-figures.json
	.build/release/waymark-bench bags --json $(OUT)/bags-figures.json
	.build/release/waymark-bench check $(OUT)/detection-figures.json $(OUT)/planes-figures.json \
		$(OUT)/relocalization-figures.json $(OUT)/session-figures.json $(OUT)/tracking-figures.json \
		$(OUT)/light-figures.json $(OUT)/bags-figures.json

# waymark-batch against a shell loop over the same 20 inputs, and a loopback cluster's start-up and
# idle memory (Benchmarks/batch/throughput.py), with the release binaries.
bench-batch: build batch-setup
	$(SWIFT) build -c release --product waymark-bench
	$(LOOPBACK_ONLY) $(BATCH_PYTHON)/bin/python Benchmarks/batch/throughput.py --build .build/release

clean:
	rm -rf .build $(OUT)
