package io.sparkcer.spark

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.ExplainMode
import org.apache.spark.sql.execution.command.ExplainCommand
import org.apache.spark.sql.types.{DataType, StructType}

import io.sparkcer.engine.ceql.{CeqlParser, Query}
import io.sparkcer.spark.ceql.{CeqlStatement, CerRequest, UnresolvedCer}
import io.sparkcer.spark.rowpattern.MatchRecognizeStatement
import io.sparkcer.spark.common.CerErrors
import io.sparkcer.engine.syntax.{Lexer, PatternException, Position, Token}

/**
 * Spark's parser, plus CEQL statements: `SELECT ... FROM s WHERE|PATTERN <cel> ...`, optionally
 * after EXPLAIN; and MATCH_RECOGNIZE clauses wherever a table stands (SQL:2016's row pattern recognition). A statement whose FROM list is followed by PATTERN is CEQL; any other statement is Spark's,
 * unless Spark's parser rejects it and CEQL's accepts it. When both reject it, the user sees CEQL's error if
 * the statement is clearly CEQL (PATTERN, or a failure past WHERE), else Spark's.
 */
final class CerSqlParser(delegate: ParserInterface) extends ParserInterface {

  override def parsePlan(sqlText: String): LogicalPlan = {
    val tokens = CerSqlParser.scan(sqlText)
    withMatchRecognize(sqlText, tokens, delegate.parsePlan).getOrElse(ceqlOrSpark(sqlText, tokens))
  }

  override def parseQuery(sqlText: String): LogicalPlan =
    withMatchRecognize(sqlText, CerSqlParser.scan(sqlText), delegate.parseQuery).getOrElse(delegate.parseQuery(sqlText))

  /**
   * A statement with MATCH_RECOGNIZE clauses, which Spark parses with the clauses taken out
   * ([[MatchRecognizeStatement]]); Spark's errors show the statement as written.
   */
  private def withMatchRecognize(sqlText: String, tokens: Option[IndexedSeq[Token]],
      parse: String => LogicalPlan): Option[LogicalPlan] = {
    val rewritten =
      try tokens.flatMap(MatchRecognizeStatement.rewrite(sqlText, _))
      catch { case e: PatternException => throw CerErrors.syntax(e) }
    rewritten.map { r =>
      r.bind(try parse(r.text)
        catch { case e: ParseException => throw r.placed(e, sqlText) }, sqlText)
    }
  }

  private def ceqlOrSpark(sqlText: String, tokens: Option[IndexedSeq[Token]]): LogicalPlan =
    tokens.flatMap(CeqlStatement.recognize(sqlText, _)) match {
      case None =>
        try delegate.parsePlan(sqlText)
        catch { case spark: ParseException => throw CerSqlParser.nestedCeql(sqlText, spark).getOrElse(spark) }
      case Some(statement) if statement.pattern =>
        try ceql(sqlText, statement)
        catch {
          case ours: PatternException =>
            // `FROM t pattern` can still be Spark's (a table alias named pattern).
            try delegate.parsePlan(sqlText)
            catch { case _: ParseException => throw CerErrors.syntax(ours) }
        }
      case Some(statement) =>
        try delegate.parsePlan(sqlText)
        catch {
          case spark: ParseException =>
            try ceql(sqlText, statement)
            catch {
              case ours: PatternException if statement.clearlyCeql(ours) =>
                throw CerErrors.syntax(
                  new PatternException(
                    s"${ours.problem} (read as CEQL, because Spark SQL does not " +
                      s"accept it either: ${spark.getMessage.trim.linesIterator.next()})",
                    ours.pos,
                    ours.query,
                    ours.length
                  ))
              case _: PatternException => throw spark
            }
        }
    }

  private def ceql(sqlText: String, statement: CeqlStatement): LogicalPlan = {
    val query =
      try CeqlParser.parse(statement.text)
      catch {
        // Rendered again over the statement as written (the CEQL text has its EXPLAIN prefix blanked out).
        case e: PatternException => throw new PatternException(e.problem, e.pos, sqlText, e.length)
      }
    val plan = CerSqlParser.plan(sqlText, statement.text, query)
    statement.explain.fold(plan)(mode => ExplainCommand(plan, ExplainMode.fromString(mode)))
  }

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier =
    delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}

object CerSqlParser {
  /**
   * A statement's tokens, read once by CEQL's lexer for both readings, CEQL's and MATCH_RECOGNIZE's (lenient: Spark's
   * operators are symbols too; strings, quoted names and comments are skipped whole). None where the lexer cannot
   * read it: then the statement is Spark's alone.
   */
  def scan(sqlText: String): Option[IndexedSeq[Token]] =
    try Some(Lexer.tokenize(sqlText, lenient = true))
    catch { case _: PatternException => None }

  /** `FROM t PATTERN `, where a CEQL statement stands inside another one. */
  private val NestedPattern = """(?i)\bFROM\s+([\w.`]+)\s+(PATTERN)\s""".r

  /**
   * A CEQL statement stands alone; where Spark's grammar expects a query (CREATE VIEW, CREATE TABLE ... AS, CACHE
   * TABLE, a subquery) Spark reads `PATTERN` as an alias and fails on what follows: then the error says so, at
   * PATTERN, with the table function to write instead.
   */
  def nestedCeql(sqlText: String, spark: ParseException): Option[ParseException] =
    NestedPattern.findFirstMatchIn(sqlText).map { m =>
      val table = m.group(1)
      CerErrors.syntax(
        new PatternException(
          s"${spark.getMessage.trim.linesIterator.next()}; a CEQL statement " +
            "(SELECT ... FROM t PATTERN ...) is a statement of its own: inside CREATE VIEW, CREATE TABLE ... AS, CACHE " +
            s"TABLE or a subquery, call the table function instead: SELECT * FROM cer(TABLE($table) PARTITION BY " +
            "(key) ORDER BY (time), '<the pattern and its clauses>')",
          Position.advance(sqlText, Position.Start, m.start(2)),
          sqlText,
          "PATTERN".length
        ))
    }

  /** A CEQL statement over its FROM tables. */
  def plan(sqlText: String, source: String, query: Query): LogicalPlan = {
    val streams = query.streams.map(_.value)
    UnresolvedCer(CerRequest(sqlText, source, query, streams), streams.map(s => UnresolvedRelation(s.split('.').toSeq)))
  }
}
