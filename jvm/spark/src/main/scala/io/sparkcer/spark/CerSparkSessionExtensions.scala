package io.sparkcer.spark

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.classic

import io.sparkcer.spark.ceql.{CerTableFunction, ResolveCer}
import io.sparkcer.spark.rowpattern.{MatchRecognizeCall, ResolveMatchRecognize}
import io.sparkcer.spark.common.CerConf
import io.sparkcer.spark.stream.OneProcessorPerExecution
import io.sparkcer.spark.translate.{SourceDivision, SourceEngine, SourceSubtraction}

/**
 * spark-cer's SQL extension: the CEQL statement parser (which also reads MATCH_RECOGNIZE clauses), the `cer` table
 * function, the `cer_validate` function, the functions `spark_cer.translate` writes for a source engine's `/`, `-` and
 * `avg` (`cer_snowflake_divide`, `cer_trino_divide`, `cer_trino_average`, `cer_snowflake_subtract`,
 * `cer_oracle_subtract`), the analyzer rules that turn a query into
 * [[io.sparkcer.spark.ceql.CerMatch]] and a MATCH_RECOGNIZE clause into its operator, the planner strategy, and the
 * optimizer rule that gives each streaming execution a stateful processor of its own. Enable with
 * `spark.sql.extensions=io.sparkcer.spark.CerSparkSessionExtensions`, or just put the jar on the classpath
 * (it is registered as a `SparkSessionExtensionsProvider` service).
 */
class CerSparkSessionExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = if (CerSparkSessionExtensions.firstTime(extensions)) {
    CerConf.register()
    extensions.injectParser((_, delegate) => new CerSqlParser(delegate))
    extensions.injectTableFunction(CerTableFunction.description)
    extensions.injectTableFunction(MatchRecognizeCall.description)
    extensions.injectFunction(CerValidateFunction.description)
    extensions.injectFunction(SourceDivision.description(SourceEngine.Snowflake))
    extensions.injectFunction(SourceDivision.description(SourceEngine.Trino))
    extensions.injectFunction(SourceDivision.description(SourceEngine.TrinoAverage))
    extensions.injectFunction(SourceSubtraction.description(SourceSubtraction.Snowflake))
    extensions.injectFunction(SourceSubtraction.description(SourceSubtraction.Oracle))
    extensions.injectResolutionRule(session => ResolveCer(session.asInstanceOf[classic.SparkSession]))
    extensions.injectResolutionRule(session => ResolveMatchRecognize(session.asInstanceOf[classic.SparkSession]))
    extensions.injectPlannerStrategy(_ => CerStrategy)
    extensions.injectPreCBORule(_ => OneProcessorPerExecution)
  }
}

object CerSparkSessionExtensions {
  /**
   * The extension points spark-cer is injected into. Spark applies an extension once for its entry in
   * `spark.sql.extensions` and once more when the ServiceLoader finds it as a provider; both are needed (the conf
   * where the jar comes with `--jars`, the service where it is only on the classpath), and twice would nest the
   * parser and register the table function again.
   */
  private val injected =
    Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap[SparkSessionExtensions, java.lang.Boolean]))

  private def firstTime(extensions: SparkSessionExtensions): Boolean = injected.add(extensions)
}
