#!/usr/bin/env bash
# Fetch Beam's Flink or Spark job server from Maven Central, for `wikisilver build --runner flink`
# (or `--runner SparkRunner`).
#
# usage: scripts/fetch_job_server.sh flink|spark [DEST]     (default DEST: .cache/RUNNER in the repository)
#
# Needs Java 11+ and Maven. Resolves the job server's jars (scripts/job-servers/RUNNER/pom.xml: Beam's
# runner 2.62.0 and its dependencies, 150 MB for Flink, 260 MB for Spark) into DEST/lib, checks each
# one against the SHA-256 pinned in scripts/job-servers/RUNNER/SHA256SUMS (Maven itself checks the
# repository's checksums: -C), and writes DEST/beam-RUNNER-job-server.jar, a launcher jar whose
# manifest names the driver class and the jars in lib/ (`java -jar` runs it as Beam runs a job
# server's own jar). Prints the launcher's path: pass it as --flink_job_server_jar (or
# --spark_job_server_jar). A second run with everything in place only checks the checksums.
# wikisilver itself never downloads anything.
set -euo pipefail
RUNNER=${1:-}
case "$RUNNER" in
    flink) MAIN=org.apache.beam.runners.flink.FlinkJobServerDriver ;;
    spark) MAIN=org.apache.beam.runners.spark.SparkJobServerDriver ;;
    *) echo "usage: $0 flink|spark [DEST]" >&2; exit 2 ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
SPEC=$HERE/job-servers/$RUNNER
DEST=${2:-$HERE/../.cache/$RUNNER}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
JAR=$DEST/beam-$RUNNER-job-server.jar

only_pinned_jars() {  # as many jars as SHA256SUMS pins (with their checksums checked: no other jar)
    [ "$(ls "$1" | grep -c '\.jar$')" = "$(grep -c . "$SPEC/SHA256SUMS")" ]
}

verified() {  # every pinned jar present with its checksum, and no other jar
    [ -d "$1" ] || return 1
    (cd "$1" && sha256sum --check --quiet --strict "$SPEC/SHA256SUMS" >/dev/null 2>&1) || return 1
    only_pinned_jars "$1"
}

if [ -f "$JAR" ] && verified "$DEST/lib"; then
    echo "$JAR"
    exit 0
fi

for tool in java mvn jar sha256sum; do
    command -v "$tool" >/dev/null || { echo "fetch_job_server: '$tool' is needed (Java 11+ and Maven)" >&2; exit 2; }
done

WORK=$(mktemp -d "$DEST/.fetch-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "fetch_job_server: resolving the Beam $RUNNER job server from Maven Central into $DEST/lib" >&2
mvn -B -q -C -f "$SPEC/pom.xml" dependency:copy-dependencies -DoutputDirectory="$WORK/lib" >&2
if ! (cd "$WORK/lib" && sha256sum --check --quiet --strict "$SPEC/SHA256SUMS" >&2); then
    echo "fetch_job_server: a jar's SHA-256 differs from $SPEC/SHA256SUMS; nothing installed" >&2
    exit 1
fi
only_pinned_jars "$WORK/lib" || { echo "fetch_job_server: Maven resolved other jars than $SPEC/SHA256SUMS pins" >&2; exit 1; }

# The launcher: Main-Class and a Class-Path of lib/*.jar (manifest lines wrap at 70 bytes, a
# continuation line starts with a space), and the loggers' settings (slf4j-simple for Flink, log4j
# for Spark): warnings and errors only, on stderr.
{
    echo "Manifest-Version: 1.0"
    echo "Main-Class: $MAIN"
    echo "Class-Path: $(cd "$WORK/lib" && ls *.jar | sed 's|^|lib/|' | tr '\n' ' ')" | fold -w 69 | sed '2,$s/^/ /'
} > "$WORK/MANIFEST.MF"
mkdir "$WORK/res"
printf 'org.slf4j.simpleLogger.defaultLogLevel=warn\norg.slf4j.simpleLogger.logFile=System.err\n' \
    > "$WORK/res/simplelogger.properties"
printf 'log4j.rootCategory=WARN, console\nlog4j.appender.console=org.apache.log4j.ConsoleAppender\nlog4j.appender.console.target=System.err\nlog4j.appender.console.layout=org.apache.log4j.PatternLayout\nlog4j.appender.console.layout.ConversionPattern=%%d %%p %%c: %%m%%n\n' \
    > "$WORK/res/log4j.properties"
jar --create --file "$WORK/launcher.jar" --manifest "$WORK/MANIFEST.MF" -C "$WORK/res" .

rm -rf "$DEST/lib"
mv "$WORK/lib" "$DEST/lib"
mv "$WORK/launcher.jar" "$JAR"
echo "$JAR"
