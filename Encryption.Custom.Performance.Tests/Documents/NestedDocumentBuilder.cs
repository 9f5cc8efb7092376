using System.Globalization;
using System.Text;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// The nested shape (<see cref="DocumentShape.Nested"/>): a customer whose address city is encrypted, and an array
/// of orders, each with a card whose number is encrypted and order lines whose ~300-byte notes are encrypted, beside
/// plain SKUs, quantities, expiry dates and streets. Selected by nested selectors only (format 101):
/// <c>/customer/address/city</c>, <c>/orders/[]/card/number</c>, <c>/orders/[]/lines/[]/note</c>.
/// </summary>
internal static class NestedDocumentBuilder
{
    private static readonly string[] s_paths = ["/customer/address/city", "/orders/[]/card/number", "/orders/[]/lines/[]/note"];

    public static BenchmarkDocument Build(int size, Random random)
    {
        var text = new DocumentText(size);
        text.TryAppend("id", DocumentText.Quote(DocumentText.Guid(random)));
        text.TryAppend("type", DocumentText.Quote("customer"));
        text.TryAppend("customer", $"{{\"name\":{DocumentText.Quote(DocumentText.Letters(random, 12))},\"address\":{{\"street\":{DocumentText.Quote(DocumentText.Letters(random, 24))},\"city\":{DocumentText.Quote(DocumentText.Text(random, 16))}}}}}");

        // The orders array fills what is left but for the padding the document ends with.
        int room = text.RemainingFor("orders");
        var orders = new StringBuilder("[");
        for (int order = 0; ; order++)
        {
            string next = Order(random, order);
            if (orders.Length + next.Length + 2 > room)
            {
                break;
            }

            orders.Append(order == 0 ? string.Empty : ",").Append(next);
        }

        text.TryAppend("orders", orders.Append(']').ToString());
        return new BenchmarkDocument(DocumentShape.Nested, size, text.Finish(random), s_paths);
    }

    private static string Order(Random random, int order)
    {
        var lines = new StringBuilder();
        int count = 1 + (order % 3);
        for (int line = 0; line < count; line++)
        {
            lines.Append(line == 0 ? string.Empty : ",")
                .Append("{\"sku\":").Append(DocumentText.Quote("SKU-" + random.Next(100_000, 999_999).ToString(CultureInfo.InvariantCulture)))
                .Append(",\"qty\":").Append(DocumentText.Number(random.Next(1, 50)))
                .Append(",\"note\":").Append(DocumentText.Quote(DocumentText.Text(random, random.Next(200, 301), escapes: true)))
                .Append('}');
        }

        string number = DocumentText.Quote("4" + random.NextInt64(100_000_000_000_000, 999_999_999_999_999).ToString(CultureInfo.InvariantCulture));
        return $"{{\"card\":{{\"number\":{number},\"expiry\":\"12/30\"}},\"lines\":[{lines}],\"total\":{DocumentText.Decimal(random, 10_000, 2)}}}";
    }
}
