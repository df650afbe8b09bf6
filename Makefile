# The two commands a newcomer needs (README): `make demo` and `make test`.
# build/sbt fetches sbt itself from Maven Central into ~/.cache/spark-cer on first use; the Python side lives in
# .venv (pyspark pinned in python/pyproject.toml), with the jar built here bundled into the package.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
# The tools, as variables so that tests/test_makefile.py can stand in stubs for them.
SBT := build/sbt
VENV := .venv
PYTHON := $(VENV)/bin/python
JAVA ?= java
SCALA_SOURCES := build.sbt $(shell find jvm -path '*/src/main/*' -type f)
SPARK_JAR := jvm/spark/target/scala-2.13/spark-cer_2.13-0.1.0-SNAPSHOT.jar
BUNDLED_JAR := python/spark_cer/jars/spark-cer.jar
ENGINE_CLASSPATH := jvm/engine/target/engine-classpath.txt
# Apache Kafka's broker (build.sbt's kafkaBroker, from Maven Central), which examples/kafka_broker.py starts.
KAFKA_CLASSPATH := jvm/kafka-broker/target/broker-classpath.txt
STOCKS ?= $(firstword $(wildcard ../shared/data/stocks.csv) data/stocks.csv.gz)
QUERY ?= sql/stocks/s3.ceql
CSV ?= $(STOCKS)
# The line the one `export` of an sbt call prints, read from sbt's output (file $(1), else standard input): the last
# line without a [level] prefix.
exported_line = grep -v '^\[' $(1) | tail -n 1

.PHONY: demo demo-stream notebooks test test-quick jvm-test jvm-build jvm-suites python-test wheel engine-run bench bench-engine bench-stream clean

demo: $(VENV)/.installed
	$(PYTHON) examples/demo.py

# The same engine on a live stream: the trace replayed one file a second, matches printed as they are found.
# ARGS=--kafka: through a Kafka broker started for the demo, the matches written to a topic exactly once.
demo-stream: $(VENV)/.installed $(if $(findstring --kafka,$(ARGS)),$(KAFKA_CLASSPATH))
	$(PYTHON) examples/streaming.py $(ARGS)

# The example notebooks run top to bottom, their outputs written into them (tests/test_notebook.py requires them to be
# what a run gives). ARGS="sql_notebook": only those named.
notebooks: $(VENV)/.installed
	$(PYTHON) examples/notebooks.py $(ARGS)

# The jar and the classpaths first; then the JVM suites and pytest side by side, since pytest spends much of its time
# waiting on the JVMs it starts. The suites' output goes to target/jvm-suites.log, and its summary (or on a failure
# its tail) is printed when they end.
test: jvm-build
	$(MAKE) --no-print-directory --jobs=2 jvm-suites python-test

# The edit-test loop, in a few minutes: the engine's suites that changed or failed since they last passed (sbt's
# testQuick), and the Python tests that start no processes of their own (those not marked slow).
test-quick: $(VENV)/.installed
	$(SBT) engine/testQuick
	$(PYTHON) -m pytest -q --numprocesses=2 --dist=loadfile -m "not slow" tests

jvm-test: jvm-build
	$(MAKE) --no-print-directory jvm-suites

# In one sbt, which takes half a minute to start: the Scala sources' layout (.scalafmt.conf) and both modules'
# packages checked for new cycles, and what the Python tests use: the jar and the Kafka broker's classpath.
jvm-build:
	mkdir -p target $(dir $(KAFKA_CLASSPATH))
	$(SBT) scalafmtCheckAll engine/packageCycles spark/packageCycles spark/package "export kafkaBroker/runtime:fullClasspath" | tee target/jvm-build.log
	$(call exported_line,target/jvm-build.log) > $(KAFKA_CLASSPATH)
	touch $(SPARK_JAR)  # sbt leaves a jar it finds current as it was: older than a source touched since
	mkdir -p $(dir $(BUNDLED_JAR)) && cp $(SPARK_JAR) $(BUNDLED_JAR)

# The engine's and the Spark module's suites, and the benchmarks compiled.
jvm-suites:
	mkdir -p target
	@echo "the engine's and the Spark module's suites: their output goes to target/jvm-suites.log"
	$(SBT) engine/test bench/compile spark/test > target/jvm-suites.log 2>&1 || { tail -n 300 target/jvm-suites.log; exit 1; }
	@grep -E "Tests: |All tests passed|Total time" target/jvm-suites.log

# The Python sources' layout (ruff.toml) checked; then two processes (pytest-xdist), each module in one of them with
# its fixtures: the tests wait on JVMs they start (a cluster, a broker, a Connect server, kernels) as much as they
# compute.
python-test: $(VENV)/.installed $(KAFKA_CLASSPATH)
	$(PYTHON) -m ruff format --check --quiet .
	$(PYTHON) -m pytest -q --numprocesses=2 --dist=loadfile tests

# A wheel with the jar inside, for `pip install` on a cluster's driver or anywhere else.
wheel: $(VENV)/.installed
	$(PYTHON) -m pip wheel -q --no-deps -w dist ./python
	@ls dist/*.whl

$(SPARK_JAR): $(SCALA_SOURCES)
	$(SBT) spark/package

$(BUNDLED_JAR): $(SPARK_JAR)
	mkdir -p $(dir $@) && cp $< $@

# The folder is made first: the shell opens the redirection before sbt has created anything.
$(ENGINE_CLASSPATH): $(SCALA_SOURCES)
	mkdir -p $(dir $@)
	$(SBT) engine/compile "export engine/runtime:fullClasspath" | $(call exported_line) > $@.tmp
	mv $@.tmp $@

$(VENV)/.installed: python/pyproject.toml tests/requirements.txt $(BUNDLED_JAR) $(shell find python/spark_cer -name '*.py')
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install -q --disable-pip-version-check -r tests/requirements.txt ./python
	touch $@

$(KAFKA_CLASSPATH): build.sbt
	mkdir -p $(dir $@)
	$(SBT) "export kafkaBroker/runtime:fullClasspath" | $(call exported_line) > $@.tmp
	mv $@.tmp $@

# make engine-run QUERY=sql/stocks/s3.ceql CSV=data/stocks.csv.gz [ARGS="--quiet"]
engine-run: $(ENGINE_CLASSPATH)
	$(JAVA) -cp "$$(cat $(ENGINE_CLASSPATH))" io.sparkcer.engine.runner.Main --query $(QUERY) --csv $(CSV) $(ARGS)

# spark-cer end to end against plain Spark SQL (self-joins) and the floor (read, shuffle, sort, count), with the
# engine alone, on CORE's stock workload: bench/results/spark.md and its plots. ARGS="--quick" for a short run.
# ARGS=--recognize-only: MATCH_RECOGNIZE, with Flink SQL as the peer in bench/.flink-venv, which the harness makes
# from bench/flink-requirements.txt (ARGS="--recognize-only --no-flink" without it).
bench: $(VENV)/.installed $(ENGINE_CLASSPATH)
	$(PYTHON) -m pip install -q --disable-pip-version-check -r bench/requirements.txt
	$(PYTHON) bench/spark_bench.py $(ARGS)

bench-engine:
	$(SBT) "$(strip bench/run $(STOCKS) $(ARGS))"

# CEQL on a file stream of the trace against the same query on the table, with the state's size per batch.
bench-stream: $(VENV)/.installed
	$(PYTHON) bench/stream_stocks.py $(ARGS)

clean:
	$(SBT) clean
	rm -rf $(ENGINE_CLASSPATH) $(KAFKA_CLASSPATH) $(BUNDLED_JAR) $(VENV) target/test-jvms
