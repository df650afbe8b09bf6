package io.sparkcer.spark.kafka

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BinaryType, StringType, StructType}

/**
 * What the sink writes of a row, as Spark's Kafka sink reads it: the column `value` as the record's value and the
 * optional column `key` as its key, each a string (written as UTF-8) or bytes.
 */
private[kafka] final case class KafkaRecords(
    key: Option[InternalRow => Array[Byte]], value: InternalRow => Array[Byte]) {

  /** The batch's records, brought to the driver: (key, value), either null where the row's column is. */
  def collect(data: DataFrame): Array[(Array[Byte], Array[Byte])] = {
    val (k, v) = (key, value)
    data.queryExecution.toRdd.map(row => (k.map(_(row)).orNull, v(row))).collect()
  }
}

private[kafka] object KafkaRecords {
  private val Columns = Seq("key", "value")

  def apply(schema: StructType): KafkaRecords = {
    val others = schema.fieldNames.filterNot(name => Columns.exists(_.equalsIgnoreCase(name)))
    if (others.nonEmpty)
      throw new IllegalArgumentException(s"the ${KafkaExactlyOnceProvider.Name} sink writes the columns `value` and " +
        s"`key` (optional), and the rows also have ${others.map(c => s"`$c`").mkString(", ")}: select a value, for " +
        "example to_json(struct(*)) AS value")
    KafkaRecords(
      bytes(schema, "key"),
      bytes(schema, "value").getOrElse(
        throw new IllegalArgumentException(
          s"the ${KafkaExactlyOnceProvider.Name} sink writes a column `value`, which the rows do not have: select one, " +
            "for example to_json(struct(*)) AS value"))
    )
  }

  private def bytes(schema: StructType, column: String): Option[InternalRow => Array[Byte]] = {
    val i = schema.fields.indexWhere(_.name.equalsIgnoreCase(column))
    if (i < 0) None
    else Some(
      schema(i).dataType match {
        case _: StringType => row => if (row.isNullAt(i)) null else row.getUTF8String(i).getBytes
        case BinaryType => row => if (row.isNullAt(i)) null else row.getBinary(i)
        case other =>
          throw new IllegalArgumentException(s"the ${KafkaExactlyOnceProvider.Name} sink writes `$column` " +
            s"as a string or bytes, and it is ${other.simpleString}: cast it, or write to_json(...) of it")
      })
  }
}
