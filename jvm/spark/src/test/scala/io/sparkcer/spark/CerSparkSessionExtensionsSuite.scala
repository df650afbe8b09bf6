package io.sparkcer.spark

import org.apache.spark.sql.SparkSession
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.ceql.ResolveCer

class CerSparkSessionExtensionsSuite extends AnyFunSuite {

  // Named in spark.sql.extensions and, on the test classpath, found as a service too: Spark applies it twice.
  private lazy val spark: SparkSession = LocalSpark.session()

  test("the extension is injected once, though Spark finds it both in spark.sql.extensions and as a service") {
    val state = spark.sessionState
    assert(state.analyzer.extendedResolutionRules.count(_.isInstanceOf[ResolveCer]) == 1)
    assert(state.planner.extraPlanningStrategies.count(_ == CerStrategy) == 1)
  }
}
