package org.apache.spark.sql.cer

import org.apache.spark.SparkRuntimeException

/**
 * The errors a CER task raises. Spark passes a task's exception to the user as it is when it has an error
 * condition (a `SparkThrowable`), and wraps any other in the job's failure and its stack traces; so the engine's
 * message travels in a `SparkRuntimeException` (`pyspark.errors.SparkRuntimeException` in Python), which is
 * private to Spark, hence this package. Its condition `_LEGACY_ERROR_TEMP_2273` ("<message>") shows the text
 * unchanged.
 */
object CerTaskErrors {
  val Condition = "_LEGACY_ERROR_TEMP_2273"

  def failed(e: RuntimeException): RuntimeException =
    new SparkRuntimeException(Condition, Map("message" -> e.getMessage), e)
}
