package io.sparkcer.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin

import io.sparkcer.engine.ceql.{CeqlException, Position}

/**
 * The exceptions spark-cer raises, built on error conditions registered in Spark 4.0's
 * `error-conditions.json` that carry a free message, so that the engine's text (line, column, the quoted line
 * and its caret) reaches the user unchanged:
 *  - syntax: `_LEGACY_ERROR_TEMP_0064` ("<msg>."), the condition Spark's own parser uses for free-text
 *    validation errors; a [[ParseException]], i.e. `pyspark.errors.ParseException` in Python;
 *  - analysis: `_LEGACY_ERROR_TEMP_1332` ("<errorMessage>"); an [[AnalysisException]].
 * Errors in a task are [[org.apache.spark.sql.cer.CerTaskErrors]].
 */
object CerErrors {
  val ParseCondition = "_LEGACY_ERROR_TEMP_0064"
  val AnalysisCondition = "_LEGACY_ERROR_TEMP_1332"

  def syntax(message: String): ParseException =
    new ParseException(None, Origin(), Origin(), ParseCondition, Map("msg" -> message))

  def syntax(e: CeqlException): ParseException = syntax(e.getMessage)

  def analysis(message: String): AnalysisException =
    new AnalysisException(AnalysisCondition, Map("errorMessage" -> message))

  def analysis(e: CeqlException): AnalysisException = analysis(e.getMessage)

  /** An analysis error pointing into the query text. */
  def analysis(problem: String, pos: Position, text: String, length: Int = 1): AnalysisException =
    analysis(CeqlException.render(problem, pos, text, length))
}
