ThisBuild / scalaVersion := "2.13.16"
ThisBuild / organization := "io.sparkcer"
ThisBuild / version := "0.1.0-SNAPSHOT"
ThisBuild / scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:_,-byname-implicit", "-release:17")

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

/** The Spark integration: SQL extension, parser, table function, logical and physical operators. */
lazy val spark = (project in file("jvm/spark"))
  // The engine's test tree too: Spark's tests check MATCH_RECOGNIZE against its oracle.
  .dependsOn(engine % "compile->compile;test->test")
  .settings(PackageCycles.settings("io.sparkcer.spark"))
  .settings(
    name := "spark-cer",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    // One jar for Python users and spark-submit: the engine's classes travel inside it.
    Compile / packageBin / mappings ++= (engine / Compile / packageBin / mappings).value,
    Test / fork := true,
    Test / javaOptions ++= Seq("-Xmx2g", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED")
  )
