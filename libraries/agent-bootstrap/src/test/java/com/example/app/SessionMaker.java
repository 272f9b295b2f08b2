package com.example.app;

import dev.vantage.agent.bootstrap.Bridge;

/** An application's class that creates ONNX Runtime sessions, as the woven constructor reports it. */
public final class SessionMaker {

    private SessionMaker() {
    }

    /** Reports a session created here. */
    public static void create(Object session, Object... arguments) {
        Bridge.sessionCreated(session, arguments);
    }
}
