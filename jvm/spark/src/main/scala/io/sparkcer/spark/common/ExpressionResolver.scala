package io.sparkcer.spark.common

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, Expression, PythonFuncExpression, ScalarSubquery, SubqueryExpression
}
import org.apache.spark.sql.catalyst.optimizer.CollapseProject
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.DataType

import io.sparkcer.engine.syntax.{PatternException, Position}

/**
 * Resolves an expression of a query with Spark's analyzer (functions, type coercion) on a stand-in relation with
 * the given attributes, so that the result refers to them directly: the input's columns for guards, the structs
 * of the events and the slots for conditions relating events ([[ConditionAnalysis]]). The result must be one that
 * the matcher can evaluate on an event as it comes, any number of times ([[ExpressionResolver.notEvaluableOnEvents]]).
 *
 * @param scalarSubqueries whether the result may hold uncorrelated scalar subqueries, `(SELECT max(p) FROM t)`: a value
 *                         per query, which Spark computes before an operator that holds the expression runs (as it
 *                         does MATCH_RECOGNIZE's on a table); IN and EXISTS subqueries Spark plans as joins
 */
final class ExpressionResolver(session: SparkSession, text: String, scalarSubqueries: Boolean = false) {
  private def subqueriesAllowed(e: Expression): Boolean = !SubqueryExpression.hasSubquery(e) || scalarSubqueries &&
    e.collect { case s: SubqueryExpression => s }.forall {
      case s: ScalarSubquery => s.outerAttrs.isEmpty
      case _ => false
    }

  /**
   * @param from the text `e` was parsed from, where Spark's errors are placed; None for expressions of our own
   * @param written the text that attributes of `over` stand for, by name, as Spark's errors should word them
   */
  def apply(e: Expression, over: Seq[Attribute], from: Option[SparkPredicate],
      written: Map[String, String] = Map.empty): Expression = {
    val analyzer = session.sessionState.analyzer
    def asWritten(message: String): String = written.toSeq.sortBy(-_._1.length).foldLeft(message) {
      case (m, (name, text)) => m.replace(s"`$name`", text).replace(name, text)
    }
    def placed[A](step: => A): A =
      try step
      catch {
        case ex: AnalysisException if from.isDefined =>
          // Spark's own error (its condition kept), placed in the query like ours.
          val source = from.get.source
          val placed = new PatternException(s"in ${source.described}: ${asWritten(ex.message.trim)}", source.pos, text,
            source.length)
          throw ex.copy(message = placed.getMessage, line = None, startPosition = None, context = Array.empty,
            messageParameters = ex.messageParameters ++ CerErrors.place(placed))
      }
    // The plan's shape is checked before Spark's checks, whose errors about aggregates speak of GROUP BY. A SQL
    // function's call is analyzed into a projection of its arguments below its body, which collapses into one.
    val analyzed = placed(analyzer.execute(Project(Seq(Alias(e, "cer_guard")()), LocalRelation(over))))
    CollapseProject(analyzed) match {
      case Project(Seq(Alias(resolved, _)), _: LocalRelation) if subqueriesAllowed(resolved) =>
        placed(analyzer.checkAnalysis(analyzed))
        ExpressionResolver.notEvaluableOnEvents(resolved).foreach { problem =>
          val source = from.map(_.source)
          throw CerErrors.analysis(s"${source.fold(e.sql)(_.described)} $problem", source.fold(Position.Unknown)(_.pos),
            text, source.fold(1)(_.length))
        }
        resolved
      case _ =>
        val source = from.map(_.source)
        throw CerErrors.analysis(
          s"${source.fold(e.sql)(_.described)} may not use Spark's aggregate, window or " +
            s"generator functions, nor subqueries${if (scalarSubqueries) " other than uncorrelated scalar ones" else ""}" +
            ": it is evaluated on events as they come (a condition's own " +
            "aggregates, count, sum, avg, min, max, first and last, range over the events of a variable, e.g. " +
            "sum(b.volume) > 100); a SQL function (CREATE FUNCTION) may be used when its body is a plain expression, " +
            "which Spark inlines",
          source.fold(Position.Unknown)(_.pos),
          text,
          source.fold(1)(_.length)
        )
    }
  }
}

object ExpressionResolver {

  /**
   * Why a resolved expression cannot be evaluated by the matcher, which evaluates conditions and measures itself, on
   * each event as it comes, and may try an event more than once (once per run it could extend, again after a
   * restart): a Python function (a Python or pandas UDF: only Spark's own plan can call into a Python worker) or
   * a value that is not deterministic (two tries would disagree). The same rule holds for CEQL and
   * MATCH_RECOGNIZE; None when the expression is fine.
   */
  def notEvaluableOnEvents(e: Expression): Option[String] = {
    val python = e.collectFirst { case p: PythonFuncExpression => p }
    // The innermost call that is not deterministic is the one the user wrote (rand(), uuid(), ...).
    val random = e.collectFirst { case r if !r.deterministic && r.children.forall(_.deterministic) => r }
    python.map(p =>
      s"calls the Python function ${p.name} (a Python or pandas UDF), which the matcher cannot " +
        s"call event by event: compute it in a column first, e.g. df.withColumn(\"x\", ${p.name}(...)), or in a " +
        "subquery in FROM, and refer to that column")
      .orElse(
        random.map(r =>
          s"calls ${r.sql}, which is not deterministic: the matcher may evaluate an event more " +
            "than once and every try must agree; compute it in a column first, e.g. df.withColumn(\"r\", " +
            s"${r.sql}), or in a subquery in FROM, and refer to that column"))
  }

  /** Why an aggregate `call` (CEQL's or MATCH_RECOGNIZE's) cannot add up its argument `value`, of `dataType`. */
  def notNumbers(call: String, value: String, dataType: DataType): String =
    s"$call is over ${dataType.sql} values, not numbers: convert them explicitly, e.g. " +
      call.replace(value, s"double($value)")
}
