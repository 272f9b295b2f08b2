package dev.vantage.agent.host;

import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;
import org.objectweb.asm.commons.Method;

/**
 * The code woven into the application's methods: calls of {@code dev.vantage.agent.bootstrap.Bridge}, whose methods
 * swallow every throwable, so the woven code cannot throw into the application (its own instructions only move
 * references). Three forms:
 *
 * <ul>
 *   <li>{@link Around}: {@code scope = Bridge.xEntered(...)} at the entry, {@code Bridge.exited(scope)} at every
 *       return and, through a handler around the whole body, for every exception (rethrown as it was). For an ONNX
 *       Runtime run, the entry may also find the call done by the platform (on its profiling session): the method
 *       then returns that result without running its body;</li>
 *   <li>{@link AtEntry}: one call at the entry ({@code SessionOptions} setters, {@code OrtSession.close});</li>
 *   <li>{@link AtReturn}: one call at each normal return, with {@code this} and the arguments (the constructors of
 *       {@code OrtSession}).</li>
 * </ul>
 *
 * Frames are not recomputed (that would load the application's classes inside the transformer): the handler's and
 * the early return's frames are written here, typed only where this code knows the types; every frame of the
 * method's own passes through {@code LocalVariablesSorter}, which adds the woven local to it.
 */
final class Weaving {

    static final Type BRIDGE = Type.getObjectType("dev/vantage/agent/bootstrap/Bridge");
    static final Type OBJECT = Type.getType(Object.class);
    private static final Method RUN_ENTERED =
            Method.getMethod("Object runEntered(Object, String, Object[])");
    private static final Method CALL_ENTERED = Method.getMethod("Object callEntered(String, int, Object)");
    private static final Method RESULT = Method.getMethod("Object result(Object)");
    private static final Method EXITED = Method.getMethod("void exited(Object)");
    private static final Method SESSION_CREATED = Method.getMethod("void sessionCreated(Object, Object[])");
    private static final Method SESSION_CLOSED = Method.getMethod("void sessionClosed(Object)");
    private static final Method OPTIONS_CALLED = Method.getMethod("void optionsCalled(Object, String, Object[])");

    private Weaving() {
    }

    /** What an {@link Around} calls at the entry. */
    sealed interface Entry permits Run, Call {
    }

    /** An ONNX Runtime session's {@code run}: the platform may run it itself. */
    record Run() implements Entry {
    }

    /** A library call or a step method, recorded under a name in a family. */
    record Call(String name, int family) implements Entry {
    }

    /** Around a method: entry, every exit, and exceptions. */
    static final class Around extends AdviceAdapter {

        private final Entry entry;
        private final String owner;
        private final String method;
        private final boolean frames;
        private final Label start = new Label();
        private int scope;

        Around(MethodVisitor mv, int access, String name, String descriptor, String owner, boolean frames,
                Entry entry) {
            super(Opcodes.ASM9, mv, access, name, descriptor);
            this.entry = entry;
            this.owner = owner;
            this.method = name + descriptor;
            this.frames = frames;
        }

        @Override
        protected void onMethodEnter() {
            boolean isStatic = (methodAccess & ACC_STATIC) != 0;
            if (entry instanceof Call c) {
                push(c.name());
                push(c.family());
                if (isStatic) {
                    visitNull();
                } else {
                    loadThis();
                }
                invokeStatic(BRIDGE, CALL_ENTERED);
            } else {
                loadThis();
                push(method);
                loadArgArray();
                invokeStatic(BRIDGE, RUN_ENTERED);
            }
            scope = newLocal(OBJECT);
            storeLocal(scope);
            if (entry instanceof Run) {
                // the platform ran the call on its profiling session: return its result, not the body's
                Type result = Type.getReturnType(methodDesc);
                loadLocal(scope);
                invokeStatic(BRIDGE, RESULT);
                dup();
                instanceOf(result);
                Label body = newLabel();
                ifZCmp(EQ, body);
                loadLocal(scope);
                invokeStatic(BRIDGE, EXITED);
                checkCast(result);
                returnValue();
                mark(body);
                if (frames) {
                    Object[] locals = entryLocals();
                    mv.visitFrame(F_NEW, locals.length, locals, 1, new Object[] {OBJECT.getInternalName()});
                }
                pop();
            }
            mark(start);
        }

        private void visitNull() {
            mv.visitInsn(ACONST_NULL);
        }

        /** The locals at the entry: this, the arguments as declared, the woven scope. */
        private Object[] entryLocals() {
            Type[] args = Type.getArgumentTypes(methodDesc);
            boolean isStatic = (methodAccess & ACC_STATIC) != 0;
            Object[] locals = new Object[args.length + (isStatic ? 1 : 2)];
            int i = 0;
            if (!isStatic) {
                locals[i++] = owner;
            }
            for (Type t : args) {
                locals[i++] = frameType(t);
            }
            locals[i] = OBJECT.getInternalName();
            return locals;
        }

        @Override
        protected void onMethodExit(int opcode) {
            // an exception thrown here reaches the handler below, which calls exited itself
            if (opcode != ATHROW) {
                loadLocal(scope);
                invokeStatic(BRIDGE, EXITED);
            }
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            // after the method's own handlers, so that they keep catching first
            Label handler = new Label();
            mv.visitTryCatchBlock(start, handler, handler, null);
            mv.visitLabel(handler);
            if (frames) {
                // only the woven local is known here: every slot before it may hold anything
                Object[] locals = new Object[scope + 1];
                java.util.Arrays.fill(locals, TOP);
                locals[scope] = OBJECT.getInternalName();
                mv.visitFrame(F_NEW, locals.length, locals, 1, new Object[] {"java/lang/Throwable"});
            }
            loadLocal(scope);
            invokeStatic(BRIDGE, EXITED);
            mv.visitInsn(ATHROW);
            super.visitMaxs(maxStack, maxLocals);
        }
    }

    /** One call at the entry: {@code SessionOptions} setters ({@code options}) or {@code OrtSession.close}. */
    static final class AtEntry extends AdviceAdapter {

        private final boolean options;

        AtEntry(MethodVisitor mv, int access, String name, String descriptor, boolean options) {
            super(Opcodes.ASM9, mv, access, name, descriptor);
            this.options = options;
        }

        @Override
        protected void onMethodEnter() {
            loadThis();
            if (options) {
                push(getName() + methodDesc);
                loadArgArray();
                invokeStatic(BRIDGE, OPTIONS_CALLED);
            } else {
                invokeStatic(BRIDGE, SESSION_CLOSED);
            }
        }
    }

    /** One call at each normal return of a constructor, with {@code this} and the arguments. */
    static final class AtReturn extends AdviceAdapter {

        AtReturn(MethodVisitor mv, int access, String name, String descriptor) {
            super(Opcodes.ASM9, mv, access, name, descriptor);
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode == RETURN) {
                loadThis();
                loadArgArray();
                invokeStatic(BRIDGE, SESSION_CREATED);
            }
        }
    }

    /** A value's type in a stack map frame. */
    static Object frameType(Type t) {
        return switch (t.getSort()) {
            case Type.BOOLEAN, Type.BYTE, Type.CHAR, Type.SHORT, Type.INT -> INTEGER;
            case Type.FLOAT -> FLOAT;
            case Type.LONG -> LONG;
            case Type.DOUBLE -> DOUBLE;
            default -> t.getInternalName();
        };
    }

    private static final Integer INTEGER = Opcodes.INTEGER;
    private static final Integer FLOAT = Opcodes.FLOAT;
    private static final Integer LONG = Opcodes.LONG;
    private static final Integer DOUBLE = Opcodes.DOUBLE;
    private static final Integer TOP = Opcodes.TOP;
}
