package dev.vantage.launcher.platform;

import static org.junit.Assert.assertEquals;

import java.util.List;

import org.junit.Test;

/** The parts of a resolver's requirement a person reads: package ranges and header clauses. */
public class MissingPackagesTest {

    @Test
    public void aRangeIsWrittenAsAnImportWritesIt() {
        assertEquals("[2.22.0,3.0.0)", MissingPackages.range(
                "(&(osgi.wiring.package=com.fasterxml.jackson.dataformat.csv)(version>=2.22.0)(!(version>=3.0.0)))"));
        assertEquals("[1.4.0,∞)", MissingPackages.range("(&(osgi.wiring.package=a.b)(version>=1.4.0))"));
        assertEquals("any version", MissingPackages.range("(osgi.wiring.package=a.b)"));
    }

    @Test
    public void headerClausesSplitAtCommasOutsideQuotes() {
        assertEquals(List.of("a.b;version=\"[1,2)\"", "c.d;uses:=\"x,y\";version=1.0"),
                MissingPackages.clauses("a.b;version=\"[1,2)\",c.d;uses:=\"x,y\";version=1.0"));
    }
}
