package io.sparkcer.spark

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, Literal}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.StringType

import io.sparkcer.spark.common.CerErrors

/**
 * The SQL function `cer_validate(request)`: [[PatternValidation]] in the session that analyzes the call, answered
 * as a string constant. It is how `spark_cer.validate` reaches the JVM's grammar and analysis through a
 * session, classic or Spark Connect alike (`SELECT * FROM VALUES (cer_validate(:request))`, which runs no job).
 */
object CerValidateFunction {
  val FunctionName = "cer_validate"

  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) = (
    FunctionIdentifier(FunctionName),
    new ExpressionInfo(
      getClass.getName.stripSuffix("$"),
      null,
      FunctionName,
      s"$FunctionName(request) - Checks a CEQL query described by a JSON request; answers in JSON (used by " +
        "spark_cer.validate).",
      "",
      "",
      "",
      "misc_funcs",
      "",
      "",
      ""
    ),
    build)

  private def build(arguments: Seq[Expression]): Expression = arguments match {
    case Seq(request) if request.foldable && request.dataType == StringType && request.eval() != null =>
      Literal(PatternValidation(request.eval().toString, Some(SparkSession.active.asInstanceOf[SparkSession])))
    case _ => throw CerErrors.analysis(s"$FunctionName takes one string constant, a JSON request")
  }
}
