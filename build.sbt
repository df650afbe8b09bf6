ThisBuild / scalaVersion := "2.13.16"
ThisBuild / organization := "io.sparkcer"
ThisBuild / version := "0.1.0-SNAPSHOT"
ThisBuild / scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:_,-byname-implicit", "-release:17")
// Each test with the time it took: `make test` keeps the suites' output, where the slow ones show.
ThisBuild / Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")

lazy val engine = (project in file("jvm/engine"))
  .settings(PackageCycles.settings("io.sparkcer.engine"))
  .settings(
    name := "spark-cer-engine",
    libraryDependencies ++= Seq(
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalacheck" %% "scalacheck" % "1.18.1" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test
    )
  )

/** Benchmarks: run with `make bench-engine`; never part of the tests. */
lazy val bench = (project in file("bench"))
  .dependsOn(engine)
  .settings(
    name := "spark-cer-bench",
    publish / skip := true,
    run / fork := true,
    run / javaOptions ++= Seq("-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"),
    run / baseDirectory := (ThisBuild / baseDirectory).value
  )

val sparkVersion = "4.0.1"
// The Kafka clients Spark's spark-sql-kafka-0-10 is built with: the exactly-once sink compiles against them, and the
// broker the tests and the Kafka demo start is the same release.
val kafkaVersion = "3.9.0"

/** The Spark integration: SQL extension, parser, table function, logical and physical operators. */
lazy val spark = (project in file("jvm/spark"))
  // The engine's test tree too: Spark's tests check MATCH_RECOGNIZE against its oracle.
  .dependsOn(engine % "compile->compile;test->test")
  .settings(PackageCycles.settings("io.sparkcer.spark"))
  .settings(
    name := "spark-cer",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      // On a cluster, spark-sql-kafka-0-10 (which a Kafka source needs anyway) brings them.
      "org.apache.kafka" % "kafka-clients" % kafkaVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    // One jar for Python users and spark-submit: the engine's classes travel inside it.
    Compile / packageBin / mappings ++= (engine / Compile / packageBin / mappings).value,
    Test / fork := true,
    Test / javaOptions ++= Seq("-Xmx2g", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED")
  )

/** A Kafka broker (KRaft) for the Kafka tests and `make demo-stream ARGS=--kafka`: nothing to build, only the
  * classpath that `make` exports and tests/kafka_broker.py starts `kafka.Kafka` with, in a JVM of its own. */
lazy val kafkaBroker = (project in file("jvm/kafka-broker"))
  .settings(
    name := "spark-cer-kafka-broker",
    publish / skip := true,
    libraryDependencies ++= Seq(
      "org.apache.kafka" %% "kafka" % kafkaVersion,
      // The broker logs through SLF4J; its distribution ships reload4j as the binding.
      "org.slf4j" % "slf4j-reload4j" % "1.7.36"
    )
  )
