package io.sparkcer.spark.common

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin

import io.sparkcer.engine.syntax.{PatternException, Position}

/**
 * The exceptions spark-cer raises, built on error conditions registered in Spark 4.0's
 * `error-conditions.json` that carry a free message, so that the engine's text (line, column, the quoted line
 * and its caret) reaches the user unchanged:
 *  - syntax: `_LEGACY_ERROR_TEMP_0064` ("<msg>."), the condition Spark's own parser uses for free-text
 *    validation errors; a [[ParseException]], i.e. `pyspark.errors.ParseException` in Python;
 *  - analysis: `_LEGACY_ERROR_TEMP_1332` ("<errorMessage>"); an [[AnalysisException]].
 * Each also carries the problem and its place in the query (line 0 when it has none) as message parameters
 * (`cerProblem`, `cerLine`, `cerColumn`, `cerOffset`, `cerLength`), which the message template ignores and the
 * Python package reads (`getMessageParameters()`, on classic and Spark Connect sessions) to raise its own
 * `CeqlError`s.
 * Errors in a task are [[org.apache.spark.sql.cer.SparkInternals.taskFailure]].
 */
object CerErrors {
  val ParseCondition = "_LEGACY_ERROR_TEMP_0064"
  val AnalysisCondition = "_LEGACY_ERROR_TEMP_1332"

  def syntax(message: String): ParseException = syntax(new PatternException(message, Position.Unknown, ""))

  def syntax(e: PatternException): ParseException =
    new ParseException(None, Origin(), Origin(), ParseCondition, Map("msg" -> e.getMessage) ++ place(e))

  def analysis(message: String): AnalysisException = analysis(new PatternException(message, Position.Unknown, ""))

  def analysis(e: PatternException): AnalysisException =
    new AnalysisException(AnalysisCondition, Map("errorMessage" -> e.getMessage) ++ place(e))

  /** An analysis error pointing into the query text. */
  def analysis(problem: String, pos: Position, text: String, length: Int = 1): AnalysisException =
    analysis(new PatternException(problem, pos, text, length))

  /** Runs a check of the engine's or of ours, raising its problem as an analysis error. */
  def analyzing[A](check: => A): A =
    try check
    catch { case e: PatternException => throw analysis(e) }

  /** Parses Spark SQL text of a query ([[SparkPredicate.parse]]), raising its problem as a syntax error. */
  def parsing[A](parse: => A): A =
    try parse
    catch { case e: PatternException => throw syntax(e) }

  /** The problem and its place in `query` that an error of ours carries ([[place]]); None for Spark's own errors. */
  def placeOf(e: AnalysisException, query: String): Option[PatternException] = {
    val p = e.getMessageParameters.asScala
    p.get("cerProblem").map { problem =>
      val pos = Position(p("cerLine").toInt, p("cerColumn").toInt, p("cerOffset").toInt)
      new PatternException(problem, pos, query, p("cerLength").toInt)
    }
  }

  /** The message parameters that carry a problem's place in the query. */
  def place(e: PatternException): Map[String, String] = Map(
    "cerProblem" -> e.problem,
    "cerLine" -> e.pos.line.toString,
    "cerColumn" -> e.pos.column.toString,
    "cerOffset" -> e.pos.offset.toString,
    "cerLength" -> e.length.toString
  )
}
