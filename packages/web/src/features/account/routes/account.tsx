import { useCallback, useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import { Link as RouterLink } from 'react-router';
import KeyOutlinedIcon from '@mui/icons-material/VpnKeyOutlined';
import { paths } from '../../../lib/paths';
import Skeleton from '@mui/material/Skeleton';
import { AccountMessages, SubscriptionType, type TSubscriptionType } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages, isApiError } from '../../../lib/api-client';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAccountDetails } from '../api/get-account-details';
import { useRequestPlanChange } from '../api/request-plan-change';
import { useWithdrawPlanRequest } from '../api/withdraw-plan-request';
import { showToast } from '../../../lib/toast';
import { AccountDetailsPanel } from '../components/account-details-panel';
import { BillingReport } from '../components/billing-report';
import { PlanDialog } from '../components/plan-dialog';
import { RequestSentDialog } from '../components/request-sent-dialog';
import { planName } from '../lib/plan-rules';

/** /account: 'Account Details' on the left, the 'Billing Report' beside it; no right info panel. */
export function AccountRoute() {
  useDocumentTitle('Account');
  const account = useAccountDetails();
  const planChange = useRequestPlanChange();
  const withdraw = useWithdrawPlanRequest();
  const [isPlanDialogOpen, setPlanDialogOpen] = useState(false);
  const [sentPlan, setSentPlan] = useState<string | null>(null);
  const [planError, setPlanError] = useState<string[] | null>(null);
  const closeSent = useCallback(() => setSentPlan(null), []);

  const request = (subType: TSubscriptionType) => {
    if (subType === SubscriptionType.NONE) return; // not a plan one can choose
    setPlanError(null);
    planChange.mutate(
      { subType, dhType: 2 },
      {
        onSuccess: (answer) => {
          setPlanDialogOpen(false);
          setSentPlan(planName(answer.requestedSubType));
        },
        onError: (error) => {
          // Spec section 8: the dialog closes and the failure text is shown.
          setPlanDialogOpen(false);
          const detail = isApiError(error) && error.hasErrors ? error.errors : [];
          setPlanError(detail);
        },
      },
    );
  };

  return (
    <PageContainer maxWidth="xl">
      <PageHeader
        title="Account"
        description="Your account, subscription plan and what your avatars' conversations used."
        actions={
          <Button component={RouterLink} to={paths.apiKeys} variant="outlined" startIcon={<KeyOutlinedIcon />}>
            API keys
          </Button>
        }
      />
      {planError ? (
        <Alert severity="error" onClose={() => setPlanError(null)} sx={{ mb: 2 }}>
          {AccountMessages.planRequestFailed}
          {planError.length > 0 ? (
            <Box component="span" sx={{ display: 'block', mt: 0.5, opacity: 0.85 }}>
              {planError.join(' ')}
            </Box>
          ) : null}
        </Alert>
      ) : null}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '320px minmax(0, 1fr)' }, gap: 3, alignItems: 'start' }}>
        {account.isPending ? (
          <Paper variant="outlined" sx={{ p: 3 }} role="status" aria-label="Loading account details">
            <Skeleton width="60%" height={32} />
            {Array.from({ length: 7 }, (_, i) => (
              <Skeleton key={i} height={44} />
            ))}
          </Paper>
        ) : account.isError ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void account.refetch()}>
                Retry
              </Button>
            }
          >
            <AlertTitle>{AccountMessages.accountLoadFailed}</AlertTitle>
            {errorMessages(account.error).join(' ')}
          </Alert>
        ) : (
          <AccountDetailsPanel account={account.data} onChangeSubscription={() => setPlanDialogOpen(true)} />
        )}
        <BillingReport />
      </Box>
      {account.data ? (
        <PlanDialog
          open={isPlanDialogOpen}
          current={account.data.licenses.webgl.subscriptionType}
          requested={account.data.requestedSubType}
          isSubmitting={planChange.isPending}
          offers={account.data.plans}
          isWithdrawing={withdraw.isPending}
          onWithdraw={() =>
            withdraw.mutate(undefined, {
              onSuccess: () => void showToast(AccountMessages.planRequestWithdrawn, 'success'),
              onError: (error) => void showToast([AccountMessages.planWithdrawFailed, ...errorMessages(error)].join(' '), 'error'),
            })
          }
          onRequest={request}
          onClose={() => setPlanDialogOpen(false)}
        />
      ) : null}
      <RequestSentDialog planName={sentPlan} onClose={closeSent} />
    </PageContainer>
  );
}
