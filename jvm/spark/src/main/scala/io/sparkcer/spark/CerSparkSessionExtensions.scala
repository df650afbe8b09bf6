package io.sparkcer.spark

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.classic

/**
 * spark-cer's SQL extension: the CEQL statement parser, the `cer` table function, the analyzer rule that turns
 * a query into [[CerMatch]], and the planner strategy. Enable with
 * `spark.sql.extensions=io.sparkcer.spark.CerSparkSessionExtensions`, or just put the jar on the classpath
 * (it is registered as a `SparkSessionExtensionsProvider` service).
 */
class CerSparkSessionExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    CerConf.register()
    extensions.injectParser((_, delegate) => new CerSqlParser(delegate))
    extensions.injectTableFunction(CerTableFunction.description)
    extensions.injectResolutionRule(session => ResolveCer(session.asInstanceOf[classic.SparkSession]))
    extensions.injectPlannerStrategy(_ => CerStrategy)
  }
}
