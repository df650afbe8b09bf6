# The two commands a newcomer needs (README): `make demo` and `make test`.
# build/sbt fetches sbt itself from Maven Central into ~/.cache/spark-cer on first use.

SBT := build/sbt
CACHE ?= $(HOME)/.cache/spark-cer
ENGINE_CLASSPATH := jvm/engine/target/engine-classpath.txt
STOCKS ?= $(firstword $(wildcard ../shared/data/stocks.csv) data/stocks.csv.gz)
QUERY ?= sql/stocks/s3.ceql
CSV ?= $(STOCKS)

.PHONY: test engine-test engine-run demo bench-engine clean

test: engine-test

engine-test:
	$(SBT) engine/test bench/compile

$(ENGINE_CLASSPATH): build.sbt $(shell find jvm/engine/src/main -name '*.scala')
	$(SBT) engine/compile "export engine/runtime:fullClasspath" | grep -v '^\[' | tail -n 1 > $@.tmp
	mv $@.tmp $@

# make engine-run QUERY=sql/stocks/s3.ceql CSV=../shared/data/stocks.csv [ARGS="--quiet"]
engine-run: $(ENGINE_CLASSPATH)
	java -cp "$$(cat $(ENGINE_CLASSPATH))" io.sparkcer.engine.runner.Main --query $(QUERY) --csv $(CSV) $(ARGS)

demo: $(ENGINE_CLASSPATH)
	@echo "== CORE's stock query S3 on $(STOCKS): first 3 matches =="
	java -cp "$$(cat $(ENGINE_CLASSPATH))" io.sparkcer.engine.runner.Main --query sql/stocks/s3.ceql --csv $(STOCKS) | head -n 3
	@echo "== Kleene + NEXT, partitioned by stock =="
	java -cp "$$(cat $(ENGINE_CLASSPATH))" io.sparkcer.engine.runner.Main --query sql/stocks/rising_next.ceql --csv $(STOCKS) | head -n 3

bench-engine:
	$(SBT) "bench/run $(STOCKS)"

clean:
	$(SBT) clean
	rm -f $(ENGINE_CLASSPATH)
