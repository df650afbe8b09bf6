package org.apache.spark.sql.cer

import scala.reflect.ClassTag

import org.apache.spark.SparkRuntimeException
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.optimizer.NormalizeFloatingNumbers

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
}
