import java.lang.reflect.Field;
import java.util.Arrays;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local listening on one address only: the first argument is the address (127.0.0.1,
 * 0.0.0.0, ...), the rest are DynamoDB Local's own options (-port, -inMemory, -sharedDb, ...).
 * DynamoDB Local has no option for the address, so this sets it on its Jetty connectors.
 */
public final class DynamoDbLocalOnHost {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) throw new IllegalArgumentException("usage: DynamoDbLocalOnHost HOST [DynamoDB Local options]");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) ((AbstractNetworkConnector) connector).setHost(args[0]);
    proxy.start();
    proxy.join();
  }
}
