package io.sparkcer.spark

import java.io.{BufferedReader, InputStreamReader, PrintStream}
import java.nio.charset.StandardCharsets

/**
 * [[PatternValidation]] for a Python process with no Spark session: `spark_cer.validate` starts this once (the
 * bundled jar on PySpark's own jars) and sends one JSON request per line on standard input; each answer is
 * one JSON line on standard output. It ends when its input does.
 */
object ValidationServer {
  def main(args: Array[String]): Unit = {
    val in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
    val out = new PrintStream(System.out, false, StandardCharsets.UTF_8)
    Iterator.continually(in.readLine()).takeWhile(_ != null).foreach { request =>
      out.println(PatternValidation(request, session = None))
      out.flush()
    }
  }
}
