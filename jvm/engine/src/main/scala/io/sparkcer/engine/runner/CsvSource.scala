package io.sparkcer.engine.runner

import java.io.{BufferedReader, File, FileInputStream, InputStreamReader}
import java.nio.charset.StandardCharsets
import java.util.zip.GZIPInputStream

import scala.collection.mutable

import io.sparkcer.engine.expr.Values

/** A CSV file whose header names the columns (CORE's stream format); `.gz` files are read decompressed. */
final class CsvSource(file: File) {
  private def open(): BufferedReader = {
    val raw = new FileInputStream(file)
    val in = if (file.getName.endsWith(".gz")) new GZIPInputStream(raw, 1 << 16) else raw
    new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)
  }

  /** The header and every row (the first `limit`), cells typed by `Values.parse`. */
  def read(limit: Int = Int.MaxValue): (IndexedSeq[String], IndexedSeq[Array[Any]]) = {
    val reader = open()
    try {
      val header = Option(reader.readLine()).map(CsvSource.split).getOrElse(
        throw new IllegalArgumentException(s"$file is empty: expected a header line naming the columns"))
      val rows = mutable.ArrayBuffer.empty[Array[Any]]
      var line = reader.readLine()
      var number = 2
      while (line != null && rows.length < limit) {
        if (line.nonEmpty) {
          val cells = CsvSource.split(line)
          if (cells.length != header.length)
            throw new IllegalArgumentException(
              s"$file, line $number: ${cells.length} cells where the header has ${header.length} (${header.mkString(",")})")
          rows += cells.map(c => Values.parse(c): Any).toArray
        }
        line = reader.readLine()
        number += 1
      }
      (header.toIndexedSeq, rows.toIndexedSeq)
    } finally reader.close()
  }
}

object CsvSource {
  /** Splits one line on commas; double quotes enclose cells that contain commas ("" is a quote). */
  def split(line: String): Array[String] = {
    val cells = mutable.ArrayBuffer.empty[String]
    val cell = new StringBuilder
    var quoted = false
    var i = 0
    while (i < line.length) {
      val c = line.charAt(i)
      if (quoted) {
        if (c == '"' && i + 1 < line.length && line.charAt(i + 1) == '"') { cell += '"'; i += 1 }
        else if (c == '"') quoted = false
        else cell += c
      } else if (c == '"') quoted = true
      else if (c == ',') { cells += cell.result(); cell.clear() }
      else cell += c
      i += 1
    }
    cells += cell.result()
    cells.toArray
  }
}
