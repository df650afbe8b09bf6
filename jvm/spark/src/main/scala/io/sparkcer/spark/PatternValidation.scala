package io.sparkcer.spark

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.analysis.caseInsensitiveResolution
import org.apache.spark.sql.catalyst.parser.{CatalystSqlParser, ParseException}
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.{DataType, StructType}

import io.sparkcer.engine.analysis.Analyzer
import io.sparkcer.engine.ceql._
import io.sparkcer.engine.picture.AutomatonGraph
import io.sparkcer.engine.plan.CompiledPattern
import io.sparkcer.engine.rowpattern.{MatchRecognizeParser, RowPatternAnalysis}
import io.sparkcer.spark.ceql.{CerAnalysis, CerRequest, ParsedCondition}
import io.sparkcer.spark.rowpattern.{MatchRecognizeAnalysis, MatchRecognizeStatement, ParsedClause}
import io.sparkcer.spark.common.{CerConf, CerErrors, SparkPredicate}
import io.sparkcer.engine.syntax.{Lexer, Name, PatternException, Position, SqlFragment}

/**
 * `spark_cer.validate`: checks a CEQL query, or a MATCH_RECOGNIZE clause, without running it, with the
 * one grammar and analysis that run it. The Python package asks through the session's JVM (the SQL function `cer_validate`, so classic
 * and Spark Connect sessions alike), or, with no session at hand, through [[ValidationServer]] on the bundled
 * jar. Either way there is no second parser of CEQL to keep in step with this one.
 *
 * The request and the answer are JSON, so that both channels carry them as one string:
 *  - request: `{"query", "schema": StructType JSON or null, "columns": [names] or null, "time_column",
 *    "type_column", "language": "ceql", "match_recognize" or "statement", "automaton": true to have the automaton
 *    drawn}`;
 *  - answer: `{"ok": true, "strategy", "streams", "variables", "outputs": [{"name", "single", "attributes"}],
 *    "predicates": {var: [Spark SQL]}, "partition_by", "order_by": [[column, descending]], "within",
 *    "consume_by", "limit"}`; for a MATCH_RECOGNIZE clause `{"ok": true, "language": "match_recognize", "variables",
 *    "subsets", "measures", "rows_per_match", "after_match", "output": [names] or null}`; either with `"automaton"`
 *    ([[PatternPicture.toMap]]) when asked; for a statement, where its clauses stand ([[describeStatement]]); or
 *    `{"ok": false, "kind": "syntax" | "analysis", "message", "problem", "line",
 *    "column", "offset", "length"}`.
 *
 * With a session and a schema the query is analyzed as Spark would run it (predicates and conditions resolved
 * and typed by Spark); otherwise predicates and conditions (a clause's expressions) are parsed by Spark's parser
 * and only their column names are checked, and without any columns, names are not checked at all.
 */
object PatternValidation {
  private val json = new ObjectMapper()

  final case class Request(query: String, schema: Option[StructType], columns: Option[Seq[String]],
      timeColumn: Option[String], typeColumn: Option[String], language: String, automaton: Boolean)

  def apply(request: String, session: Option[SparkSession]): String = {
    val answer: Map[String, Any] =
      try {
        val r = read(request)
        try describe(r, session)
        catch {
          case Syntax(e) => failure("syntax", e)
          case e: PatternException => failure("analysis", e)
          case e: AnalysisException =>
            val placed =
              CerErrors.placeOf(e, r.query).getOrElse(new PatternException(e.getMessage, Position.Unknown, r.query))
            failure(if (e.isInstanceOf[ParseException]) "syntax" else "analysis", placed)
        }
      } catch {
        case NonFatal(e) =>
          // A bug, not a problem of the query: said as such, and the caller (a long-lived server) goes on.
          Map("ok" -> false, "kind" -> "internal", "message" -> s"spark-cer failed to validate the query: $e")
      }
    json.writeValueAsString(toJava(answer))
  }

  private def failure(kind: String, e: PatternException): Map[String, Any] = Map(
    "ok" -> false,
    "kind" -> kind,
    "message" -> e.getMessage,
    "problem" -> e.problem,
    "line" -> e.pos.line,
    "column" -> e.pos.column,
    "offset" -> e.pos.offset,
    "length" -> e.length
  )

  private def read(request: String): Request = {
    val node = json.readTree(request)
    def text(field: String): Option[String] = Option(node.get(field)).filterNot(_.isNull).map(_.asText)
    Request(
      text("query").getOrElse(throw new IllegalArgumentException("a validation request needs a query")),
      text("schema").map(s => DataType.fromJson(s).asInstanceOf[StructType]),
      Option(node.get("columns")).filterNot(_.isNull).map(_.elements().asScala.map(_.asText).toSeq),
      text("time_column"),
      text("type_column"),
      text("language").getOrElse("ceql"),
      Option(node.get("automaton")).exists(_.asBoolean)
    )
  }

  private def describe(r: Request, session: Option[SparkSession]): Map[String, Any] = r.language match {
    case "match_recognize" => describeClause(r, session)
    case "statement" => describeStatement(r)
    case _ => describeQuery(r, session)
  }

  /**
   * Where a statement's MATCH_RECOGNIZE clauses stand, and the pieces of each that another engine's SQL may write
   * differently (`spark_cer.translate` rewrites them): each PARTITION BY expression, ORDER BY item (with its
   * direction), MEASURES expression and name, and DEFINE condition, by its offsets in the statement, with the edits
   * (offset in the piece, length, replacement) that make RUNNING and FINAL functions, which any SQL parser reads; and
   * the clause's pattern and union variables, and its rows per match. The statement may be written for another
   * engine: only the clauses are parsed, by the grammar that runs them.
   */
  private def describeStatement(r: Request): Map[String, Any] = {
    val tokens =
      try Lexer.tokenize(r.query, lenient = true)
      catch { case e: PatternException => throw Syntax(e) }
    val clauses =
      try MatchRecognizeStatement.locate(r.query, tokens)
      catch { case e: PatternException => throw Syntax(e) }
    def piece(kind: String, start: Int, end: Int, edits: Seq[SqlFragment.Edit] = Nil): Map[String, Any] = Map(
      "kind" -> kind, "start" -> start, "end" -> end,
      "edits" -> edits.map(e => Seq[Any](e.offset, e.length, e.replacement)))
    def fragment(kind: String, f: SqlFragment) = piece(kind, f.pos.offset, f.pos.offset + f.text.length, f.edits)
    // A name as written: its token (a quoted name's quotes included).
    def name(n: Name) = piece("name", n.pos.offset, tokens.find(_.pos.offset == n.pos.offset).fold(n.pos.offset)(_.end))
    Map[String, Any](
      "ok" -> true,
      "language" -> "statement",
      "clauses" -> clauses.map { c =>
        val k = c.clause
        val pattern = RowPatternAnalysis.analyze(k, r.query)
        Map(
          "relation" -> Seq(c.relationStart, c.relationEnd),
          "clause" -> Seq(c.start, c.end),
          "variables" -> (pattern.labels ++ pattern.subsets.keys),
          "rows_per_match" -> k.rowsPerMatch.sql,
          "pieces" -> (
            k.partitionBy.map(fragment("partition", _)) ++
              k.orderBy.map(o => piece("order", o.expression.pos.offset, o.end)) ++
              k.measures.flatMap(m => Seq(fragment("measure", m.expression), name(m.name))) ++
              k.defines.map(d => fragment("define", d.condition)))
        )
      }
    )
  }

  /**
   * A MATCH_RECOGNIZE clause: with a schema and a session analyzed as Spark runs it (its output columns told),
   * otherwise its pattern checked and each expression parsed by Spark's parser.
   */
  private def describeClause(r: Request, session: Option[SparkSession]): Map[String, Any] = {
    val clause =
      try MatchRecognizeParser.parse(r.query)
      catch { case e: PatternException => throw Syntax(e) }
    val pattern = RowPatternAnalysis.analyze(clause, r.query)
    val output = (r.schema, session) match {
      case (Some(schema), Some(spark)) =>
        val input = LocalRelation(DataTypeUtils.toAttributes(schema))
        Some(new MatchRecognizeAnalysis(spark, ParsedClause(clause, r.query), input).plan.output.map(_.name))
      case _ =>
        val parser = session.map(_.sessionState.sqlParser).getOrElse(CatalystSqlParser)
        val texts = clause.partitionBy ++ clause.orderBy.map(_.expression) ++ clause.measures.map(_.expression) ++
          clause.defines.map(_.condition)
        val parsed = texts.map { p =>
          try SparkPredicate.parse(p, SparkPredicate.Source("expression", p.text, p.pos), r.query, parser)
          catch { case e: PatternException => throw Syntax(e) }
        }
        r.columns.orElse(r.schema.map(_.fieldNames.toSeq)).foreach { columns =>
          val variables = pattern.labels ++ pattern.subsets.keys
          parsed.foreach(_.checkMatchColumns(variables, columns, caseInsensitiveResolution))
        }
        None
    }
    Map[String, Any](
      "ok" -> true,
      "language" -> "match_recognize",
      "variables" -> pattern.labels,
      "subsets" -> pattern.subsets.map { case (name, labels) => name -> labels.toSeq.sorted.map(pattern.labels) },
      "measures" -> clause.measures.map(_.name.value),
      "rows_per_match" -> clause.rowsPerMatch.sql,
      "after_match" -> clause.skip.sql,
      "output" -> output.orNull
    ) ++ drawn(r, AutomatonGraph.of(pattern))
  }

  /** The automaton as a graph, where the request asks for it. */
  private def drawn(r: Request, graph: => AutomatonGraph): Map[String, Any] =
    if (r.automaton) Map("automaton" -> PatternPicture.toMap(graph)) else Map.empty

  private def describeQuery(r: Request, session: Option[SparkSession]): Map[String, Any] = {
    val query =
      try CeqlParser.parse(r.query)
      catch { case e: PatternException => throw Syntax(e) }
    val compiled = (r.schema, session) match {
      case (Some(schema), Some(spark)) =>
        val request = CerRequest(r.query, r.query, query, query.streams.map(_.value), r.typeColumn, r.timeColumn)
        new CerAnalysis(spark, request, LocalRelation(DataTypeUtils.toAttributes(schema))).plan.pattern.compiled
      case _ => byNames(r, query, session)
    }
    val analyzed = compiled.analyzed
    val filters = Filter.all(query.pattern)
    Map[String, Any](
      "ok" -> true,
      "strategy" -> query.strategy.keyword,
      "streams" -> query.streams.map(_.value),
      "variables" -> Analyzer.boundVariables(query.pattern),
      "outputs" -> analyzed.outputs.map(o =>
        Map[String, Any]("name" -> o.name, "single" -> o.single, "attributes" -> o.attributes.map(analyzed.columns))),
      "predicates" -> filters.groupBy(_.variable.value).map { case (v, fs) => v -> fs.map(_.predicate.sparkSql) },
      "conditions" -> Filter.filters(query.pattern).flatMap(Filter.relations).map(_.condition.text),
      "partition_by" -> query.partitionBy.map(_.head.value),
      "order_by" -> query.orderBy.map(k => Seq[Any](k.column.value, k.descending)),
      "within" -> query.within.map(Window.describe).orNull,
      "consume_by" -> query.consumeBy.keyword,
      "limit" -> query.limit.orNull
    ) ++ drawn(r, AutomatonGraph.of(compiled))
  }

  /**
   * The engine's analysis over column names (all those the query names, when none are given), compiled as a query is
   * planned, for the rules that depend on the evaluator chosen (a condition that keeps the events of a repeating
   * variable needs a window, unless a PCEA keys it).
   */
  private def byNames(r: Request, query: Query, session: Option[SparkSession]): CompiledPattern = {
    val parser = session.map(_.sessionState.sqlParser).getOrElse(CatalystSqlParser)
    def parsed[A](parse: => A): A =
      try parse
      catch { case e: PatternException => throw Syntax(e) }
    val predicates = Filter.all(query.pattern).map(f => parsed(SparkPredicate.parse(f, r.query, parser)))
    val conditions = Filter.filters(query.pattern).flatMap(Filter.relations)
      .map(c => parsed(ParsedCondition(c.condition, r.query, parser)))
    val known = r.columns.orElse(r.schema.map(_.fieldNames.toSeq))
    known.foreach { columns =>
      predicates.foreach(_.checkColumns(columns, caseInsensitiveResolution))
      conditions.foreach(_.checkReferences(columns, caseInsensitiveResolution))
    }
    val columns = known.getOrElse(namedColumns(query) ++ r.typeColumn ++ r.timeColumn)
    val analyzed = Analyzer.analyze(query, r.query, columns.toIndexedSeq,
      r.typeColumn.getOrElse(CerConf.EVENT_TYPE_COLUMN.defaultValue.get), None, r.timeColumn)
    new CompiledPattern(analyzed, equalityPcea = session.forall(s => CerConf.pceaEnabled(s.sessionState.conf)))
  }

  /** Every column a query names outside its predicates: standing in for a schema that is not given. */
  private def namedColumns(query: Query): Seq[String] = {
    val selected = query.selection match {
      case Selection.Variables(items) => items.flatMap(_.attributes)
      case _ => Nil
    }
    val window = query.within.collect { case Window.Attribute(_, column, _) => column }
    (query.partitionBy.flatten ++ query.orderBy.map(_.column) ++ window ++ selected).map(_.value).distinct
  }

  /** A syntax error, told apart from analysis errors in the answer. */
  private final case class Syntax(error: PatternException) extends RuntimeException(error)

  def toJava(value: Any): Any = value match {
    case m: Map[_, _] => m.map { case (k, v) => k -> toJava(v) }.asJava
    case s: Seq[_] => s.map(toJava).asJava
    case other => other
  }
}
