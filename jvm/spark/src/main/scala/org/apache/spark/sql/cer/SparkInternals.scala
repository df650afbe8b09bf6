package org.apache.spark.sql.cer

import scala.reflect.ClassTag

import org.apache.spark.{QueryContext, SparkRuntimeException}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.optimizer.NormalizeFloatingNumbers
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.types.{Decimal, DecimalType}

/**
 * The `private[spark]` and `private[sql]` APIs spark-cer needs, and nothing of spark-cer itself: the operator and its tasks live
 * in `io.sparkcer.spark`, which depends on this package and never the other way round.
 */
object SparkInternals {

  /** `RDD.mapPartitionsWithIndexInternal`: no closure cleaning or serialization check per call, as Spark's own operators. */
  def mapPartitionsWithIndex[T, U: ClassTag](rdd: RDD[T])(f: (Int, Iterator[T]) => Iterator[U]): RDD[U] =
    rdd.mapPartitionsWithIndexInternal(f)

  /**
   * The error condition of a failed CER task. Spark passes a task's exception to the user as it is when it has an
   * error condition (a `SparkThrowable`), and wraps any other in the job's failure and its stack traces; so the
   * engine's message travels in a `SparkRuntimeException` (`pyspark.errors.SparkRuntimeException` in Python), whose
   * constructor is private to Spark. Its condition `_LEGACY_ERROR_TEMP_2273` ("<message>") shows the text unchanged.
   */
  val TaskFailureCondition = "_LEGACY_ERROR_TEMP_2273"

  def taskFailure(e: RuntimeException): RuntimeException =
    new SparkRuntimeException(TaskFailureCondition, Map("message" -> e.getMessage), e)

  /**
   * A grouping key as Spark's joins, aggregates and window partitions read it: -0.0 is 0.0 and every NaN is one
   * value, in floats, doubles and inside structs and arrays (the optimizer's rule does this only for Spark's own
   * operators). Other keys are returned as they are.
   */
  def normalizedKey(key: Expression): Expression = NormalizeFloatingNumbers.normalize(key)

  /**
   * The errors of Spark's `/` and `div` under ANSI, DIVIDE_BY_ZERO and ARITHMETIC_OVERFLOW, placed at `context` (the
   * call in the query's text), for a division that fails whatever `spark.sql.ansi.enabled` says.
   */
  def divideByZero(context: QueryContext): ArithmeticException = QueryExecutionErrors.divideByZeroError(context)

  def integralDivideOverflow(context: QueryContext): ArithmeticException =
    QueryExecutionErrors.arithmeticOverflowError("Overflow in integral divide", context = context)

  /**
   * A decimal as a value of `t`, rounded half up, or Spark's ANSI error where it does not fit
   * (NUMERIC_VALUE_OUT_OF_RANGE).
   */
  def fitted(value: Decimal, t: DecimalType, context: QueryContext): Decimal =
    value.toPrecision(t.precision, t.scale, Decimal.ROUND_HALF_UP, nullOnOverflow = false, context)
}
