import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "aws-console",
  name: "AWS console",
  category: "code",
  matches: ["*://console.aws.amazon.com/*", "*://*.console.aws.amazon.com/*"],
  advice:
    "Most resources are per region: check the region selector at the top right before searching or creating. Create flows are multi-step wizards whose defaults can cost money; read each step. Deleting asks you to type the resource name or 'delete'.",
  examples: {
    match: ["https://us-east-1.console.aws.amazon.com/ec2/home", "https://console.aws.amazon.com/iam/"],
    noMatch: ["https://aws.amazon.com/ec2/"],
  },
});
