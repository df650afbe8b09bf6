// The formatter: `build/sbt scalafmtAll` lays the sources out as .scalafmt.conf says; `make test` checks them.
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.5.5")
