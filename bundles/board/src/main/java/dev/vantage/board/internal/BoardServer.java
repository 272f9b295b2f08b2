package dev.vantage.board.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.servlet.Servlet;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.http.context.ServletContextHelper;
import org.osgi.service.http.runtime.HttpServiceRuntime;
import org.osgi.util.tracker.ServiceTracker;

import dev.vantage.board.api.BoardView;
import dev.vantage.cli.BoardCommand;
import dev.vantage.cli.LaunchedCommand;
import dev.vantage.cli.LocalPlatforms;

/**
 * {@code vantage board}: when the platform was launched with the board verb, serves the log directory's runs and the
 * registered {@link BoardView}s through the OSGi HTTP Whiteboard (a servlet context of the board's own, which checks
 * {@link Access}, a JSON servlet and the page's). Once the HTTP service listens, it registers a service with the
 * property {@code vantage.board.url}, the URL to open, which the verbs bundle prints. Views come and go with their
 * services; the page asks for them on every run it opens.
 */
@Component(service = {}, immediate = true)
public class BoardServer {

    /** The name of the board's servlet context. */
    static final String CONTEXT = "dev.vantage.board";
    /** How many read runs the board holds at most. */
    static final int KEEP_RUNS = Integer.getInteger("vantage.board.keepRuns", 8);

    private final List<BoardView> views = new CopyOnWriteArrayList<>();
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();
    private ServiceTracker<HttpServiceRuntime, HttpServiceRuntime> runtime;
    private volatile ServiceRegistration<?> announced;
    private ExecutorService analyses;

    @Reference(target = "(vantage.launcher=command)")
    private LaunchedCommand launched;

    /** The attach client the launcher registers for the board (live capture), while there is one. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile LocalPlatforms platforms;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindView(BoardView view) {
        views.add(view);
    }

    void unbindView(BoardView view) {
        views.remove(view);
    }

    /** The views, in tab order. */
    List<BoardView> views() {
        List<BoardView> sorted = new ArrayList<>(views);
        sorted.sort(Comparator.comparingInt(BoardView::order).thenComparing(BoardView::id));
        return sorted;
    }

    @Activate
    void activate(BundleContext context) {
        if (!(launched.command().options() instanceof BoardCommand board)) {
            // the platform runs another verb: no board
            return;
        }
        Access access = new Access(board.token());
        // one thread computes what a run's first answer does not wait for (each step's critical path), a run at a time
        analyses = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "vantage-board-analyses");
            t.setDaemon(true);
            return t;
        });
        Runs runs = new Runs(new Logdir(board.logdir()), KEEP_RUNS, System::currentTimeMillis, analyses);
        Hashtable<String, Object> contextProps = new Hashtable<>();
        contextProps.put("osgi.http.whiteboard.context.name", CONTEXT);
        contextProps.put("osgi.http.whiteboard.context.path", "/");
        registrations.add(context.registerService(ServletContextHelper.class,
                new BoardContext(context.getBundle(), access), contextProps));
        registrations.add(context.registerService(Servlet.class, new ApiServlet(runs, this::views),
                servlet("board-api", "/api/*")));
        registrations.add(context.registerService(Servlet.class, new LiveServlet(new Live(() -> platforms,
                board.logdir(), ProcessHandle.current().pid())), servlet("board-live", "/api/platforms", "/api/platforms/*")));
        registrations.add(context.registerService(Servlet.class, new PageServlet(),
                servlet("board-page", "/", "/static/*")));
        runtime = new ServiceTracker<>(context, HttpServiceRuntime.class, null) {
            @Override
            public HttpServiceRuntime addingService(ServiceReference<HttpServiceRuntime> reference) {
                announce(context, reference, board);
                return super.addingService(reference);
            }

            @Override
            public void modifiedService(ServiceReference<HttpServiceRuntime> reference, HttpServiceRuntime service) {
                // the endpoint may be set after the runtime registered
                announce(context, reference, board);
            }
        };
        runtime.open();
    }

    private static Dictionary<String, Object> servlet(String name, String... patterns) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.http.whiteboard.servlet.name", name);
        props.put("osgi.http.whiteboard.servlet.pattern", patterns);
        props.put("osgi.http.whiteboard.context.select", "(osgi.http.whiteboard.context.name=" + CONTEXT + ")");
        return props;
    }

    private synchronized void announce(BundleContext context, ServiceReference<HttpServiceRuntime> reference,
            BoardCommand board) {
        if (announced != null) {
            return;
        }
        Integer port = Endpoints.port(reference.getProperty("osgi.http.endpoint"));
        if (port == null) {
            return;
        }
        String url = "http://" + urlHost(board) + ":" + port + "/" + (board.token() == null ? ""
                : "?token=" + board.token());
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("vantage.board.url", url);
        props.put("vantage.board.logdir", board.logdir().toString());
        announced = context.registerService(Object.class.getName(), new Object(), props);
    }

    /** The host of the printed URL: as given, or this machine's name for a wildcard address. */
    static String urlHost(BoardCommand board) {
        String host = board.listenHost();
        try {
            if (InetAddress.getByName(host).isAnyLocalAddress()) {
                return InetAddress.getLocalHost().getHostName();
            }
        } catch (UnknownHostException e) {
            return host;
        }
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    @Deactivate
    void deactivate() {
        if (runtime != null) {
            runtime.close();
        }
        ServiceRegistration<?> a = announced;
        if (a != null) {
            unregister(a);
        }
        registrations.forEach(BoardServer::unregister);
        registrations.clear();
        if (analyses != null) {
            // what was started finishes and closes its trace; nothing new starts
            analyses.shutdown();
        }
    }

    private static void unregister(ServiceRegistration<?> r) {
        try {
            r.unregister();
        } catch (IllegalStateException e) {
            // already gone with the framework
        }
    }
}
