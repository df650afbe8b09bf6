"""The Spark benchmark harness behind bench/spark_bench.py: spark-cer against the engine alone, plain Spark SQL and
the floor, on CORE's stock workload."""
